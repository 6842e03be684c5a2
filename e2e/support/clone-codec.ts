// The carrier the Electron-shaped e2e pass uses between the page and the test
// process. No imports: the same file runs in Node (vitest) and, bundled by
// esbuild, in the page.
//
// Electron's `ipcRenderer.invoke` structured-clones its arguments in the
// renderer and `ipcMain.handle`'s result in main. The relay does exactly that
// (`structuredClone` on the sending side, see ipc-shell.ts) and this codec only
// carries the clone's output through Playwright's JSON-only binding: every value
// is a tagged tuple, so nothing is guessed on the way back (a Uint8Array is
// sent as its bytes and rebuilt as a Uint8Array, a string that looks like
// base64 stays a string). What the codec cannot carry faithfully (shared or
// cyclic references, sparse arrays, exotic objects) throws: a false failure,
// never a false pass.

/** One carried value. */
export type Carried =
  | readonly ['u']
  | readonly ['z']
  | readonly ['b', boolean]
  | readonly ['s', string]
  | readonly ['n', number]
  | readonly ['N', 'NaN' | 'Infinity' | '-Infinity' | '-0']
  | readonly ['i', string]
  | readonly ['a', readonly Carried[]]
  | readonly ['o', readonly (readonly [string, Carried])[]]
  | readonly ['d', Carried]
  | readonly ['r', string, string]
  | readonly ['m', readonly (readonly [Carried, Carried])[]]
  | readonly ['S', readonly Carried[]]
  | readonly ['t', TypedArrayName, string, number, number]
  | readonly ['B', string]
  | readonly ['e', string, string];

/** The typed-array kinds structured clone keeps. */
export const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const;
export type TypedArrayName = (typeof TYPED_ARRAYS)[number];

type TypedArrayCtor = new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView;

/** Node's Buffer where there is one (the test process), else the page's atob/btoa. */
const NodeBuffer = (globalThis as { Buffer?: { from(b: Uint8Array | string, enc?: string): Uint8Array & { toString(enc: string): string } } }).Buffer;

function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  if (NodeBuffer !== undefined) return new Uint8Array(NodeBuffer.from(text, 'base64'));
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function typedArrayName(v: object): TypedArrayName | null {
  for (const name of TYPED_ARRAYS) {
    const ctor = (globalThis as unknown as Record<string, unknown>)[name] as (abstract new (...a: never[]) => unknown) | undefined;
    if (ctor !== undefined && Object.getPrototypeOf(v) === ctor.prototype) return name;
  }
  return null;
}

/**
 * Encodes the output of `structuredClone` (call it first: the codec carries a
 * clone, it does not make one). Throws on anything a clone cannot contain or
 * the carrier cannot reproduce.
 */
export function encodeClone(value: unknown): Carried {
  const seen = new Set<object>();
  const enc = (v: unknown): Carried => {
    if (v === undefined) return ['u'];
    if (v === null) return ['z'];
    switch (typeof v) {
      case 'boolean':
        return ['b', v];
      case 'string':
        return ['s', v];
      case 'number':
        if (Number.isNaN(v)) return ['N', 'NaN'];
        if (v === Infinity) return ['N', 'Infinity'];
        if (v === -Infinity) return ['N', '-Infinity'];
        if (Object.is(v, -0)) return ['N', '-0'];
        return ['n', v];
      case 'bigint':
        return ['i', v.toString()];
      case 'object':
        break;
      default:
        throw new TypeError(`clone-codec: a ${typeof v} cannot be structured-cloned`);
    }
    const o = v as object;
    if (seen.has(o)) throw new TypeError('clone-codec: shared or cyclic references are not carried');
    seen.add(o);
    const proto: unknown = Object.getPrototypeOf(o);
    if (Array.isArray(o)) {
      const items: Carried[] = [];
      for (let i = 0; i < o.length; i++) {
        if (!(i in o)) throw new TypeError('clone-codec: sparse arrays are not carried');
        items.push(enc((o as unknown[])[i]));
      }
      if (Object.keys(o).length !== o.length) throw new TypeError('clone-codec: arrays with extra properties are not carried');
      return ['a', items];
    }
    if (proto === Object.prototype || proto === null) {
      return ['o', Object.keys(o).map((k) => [k, enc((o as Record<string, unknown>)[k])] as const)];
    }
    if (o instanceof Date) return ['d', enc(o.getTime())];
    if (o instanceof RegExp) return ['r', o.source, o.flags];
    if (o instanceof Map) return ['m', [...o.entries()].map(([k, x]) => [enc(k), enc(x)] as const)];
    if (o instanceof Set) return ['S', [...o.values()].map(enc)];
    if (o instanceof Error) return ['e', o.name, o.message];
    if (o instanceof ArrayBuffer) return ['B', toBase64(new Uint8Array(o))];
    const typed = typedArrayName(o);
    if (typed !== null) {
      // As structured clone does: the whole underlying buffer, and the view's place in it.
      const view = o as ArrayBufferView & { readonly length: number };
      return ['t', typed, toBase64(new Uint8Array(view.buffer)), view.byteOffset, view.length];
    }
    throw new TypeError(`clone-codec: ${Object.prototype.toString.call(o)} is not carried`);
  };
  return enc(value);
}

/** Rebuilds what {@link encodeClone} carried, with the receiving realm's own constructors. */
export function decodeClone(c: Carried): unknown {
  switch (c[0]) {
    case 'u':
      return undefined;
    case 'z':
      return null;
    case 'b':
    case 's':
    case 'n':
      return c[1];
    case 'N':
      return c[1] === 'NaN' ? NaN : c[1] === 'Infinity' ? Infinity : c[1] === '-Infinity' ? -Infinity : -0;
    case 'i':
      return BigInt(c[1]);
    case 'a':
      return c[1].map(decodeClone);
    case 'o': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of c[1]) Object.defineProperty(out, k, { value: decodeClone(x), enumerable: true, writable: true, configurable: true });
      return out;
    }
    case 'd':
      return new Date(decodeClone(c[1]) as number);
    case 'r':
      return new RegExp(c[1], c[2]);
    case 'm':
      return new Map(c[1].map(([k, x]) => [decodeClone(k), decodeClone(x)]));
    case 'S':
      return new Set(c[1].map(decodeClone));
    case 'e': {
      const ctors: Record<string, ErrorConstructor> = { EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
      const e = new (ctors[c[1]] ?? Error)(c[2]);
      return e;
    }
    case 'B': {
      const bytes = fromBase64(c[1]);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
    case 't': {
      const bytes = fromBase64(c[2]);
      const ctor = (globalThis as unknown as Record<string, TypedArrayCtor>)[c[1]]!;
      return new ctor(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, c[3], c[4]);
    }
    default:
      throw new TypeError(`clone-codec: unknown tag ${JSON.stringify((c as readonly unknown[])[0])}`);
  }
}
