import type { ThreadChannelChange, ThreadChannelSummary, ThreadJson, ThreadValueChange } from '../contract/threads';
import { PythonValue } from './python-serde';

const MAX_DEPTH = 64;

/** The type a value is noted with: JSON kinds, its class name for class instances, the Python type name of a Python value. */
export function typeOfValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof PythonValue) return value.pythonType;
  if (Array.isArray(value)) return 'array';
  if (typeof value !== 'object') return typeof value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return 'object';
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}

/**
 * A deserialized channel value as JSON.
 *
 * Class instances go through their `toJSON` when they have one (LangChain
 * messages give their serialized form), dates become ISO text, bytes base64,
 * maps and sets arrays, big integers and non-finite numbers text.
 */
export function toThreadJson(value: unknown, depth = 0): ThreadJson {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return String(value);
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (value instanceof PythonValue) return value.json; // its documented JSON form (PythonValueJson), bounded when decoded
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((v) => toThreadJson(v, depth + 1));
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [toThreadJson(k, depth + 1), toThreadJson(v, depth + 1)]);
  if (value instanceof Set) return [...value].map((v) => toThreadJson(v, depth + 1));
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function' && typeOfValue(value) !== 'object') return toThreadJson((toJSON as () => unknown).call(value), depth + 1);
  const out: Record<string, ThreadJson> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined && typeof v !== 'function') out[k] = toThreadJson(v, depth + 1);
  }
  return out;
}

/** One JSON-pointer reference token (RFC 6901 escaping). */
function escapeToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(v: ThreadJson): v is { readonly [key: string]: ThreadJson } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of two JSON values. */
export function jsonEqual(a: ThreadJson, b: ThreadJson): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] as ThreadJson, b[i] as ThreadJson)) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual(a[k] as ThreadJson, b[k] as ThreadJson)) return false;
    return true;
  }
  return false;
}

/**
 * The value changes from `before` to `after` under `pointer`, in document order.
 *
 * Objects are compared key by key (keys sorted), arrays index by index; a
 * value whose kind changes (object ↔ array ↔ scalar) is one modification.
 */
export function jsonChanges(pointer: string, before: ThreadJson, after: ThreadJson, out: ThreadValueChange[]): void {
  if (jsonEqual(before, after)) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const p = `${pointer}/${i}`;
      if (i >= before.length) out.push({ pointer: p, kind: 'added', before: null, after: after[i] as ThreadJson });
      else if (i >= after.length) out.push({ pointer: p, kind: 'removed', before: before[i] as ThreadJson, after: null });
      else jsonChanges(p, before[i] as ThreadJson, after[i] as ThreadJson, out);
    }
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) {
      const p = `${pointer}/${escapeToken(k)}`;
      const inB = Object.prototype.hasOwnProperty.call(before, k);
      const inA = Object.prototype.hasOwnProperty.call(after, k);
      if (!inB) out.push({ pointer: p, kind: 'added', before: null, after: after[k] as ThreadJson });
      else if (!inA) out.push({ pointer: p, kind: 'removed', before: before[k] as ThreadJson, after: null });
      else jsonChanges(p, before[k] as ThreadJson, after[k] as ThreadJson, out);
    }
    return;
  }
  out.push({ pointer, kind: 'modified', before, after });
}

/**
 * The per-channel summary and every value change between two sets of channel values (`checkpoint` may throw to stop).
 *
 * The reference form over fully revived values; `threads.diff` runs `diffUnrevivedChannels`, which must give the same answer.
 */
export function diffChannels(before: ReadonlyMap<string, ThreadJson>, after: ReadonlyMap<string, ThreadJson>, checkpoint: () => void = () => undefined): { channels: ThreadChannelSummary[]; changes: ThreadValueChange[] } {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const channels: ThreadChannelSummary[] = [];
  const changes: ThreadValueChange[] = [];
  for (const channel of names) {
    checkpoint(); // a cancellation is observed between channels
    const p = `/${escapeToken(channel)}`;
    const start = changes.length;
    let change: ThreadChannelChange;
    if (!before.has(channel)) {
      change = 'added';
      changes.push({ pointer: p, kind: 'added', before: null, after: after.get(channel) ?? null });
    } else if (!after.has(channel)) {
      change = 'removed';
      changes.push({ pointer: p, kind: 'removed', before: before.get(channel) ?? null, after: null });
    } else {
      jsonChanges(p, before.get(channel) ?? null, after.get(channel) ?? null, changes);
      change = changes.length === start ? 'unchanged' : 'modified';
    }
    channels.push({ channel, change, changes: changes.length - start });
  }
  return { channels, changes };
}

/** Deep equality of two parsed JSON documents (key order aside). */
export function parsedEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!parsedEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !parsedEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A channel value before revival: parsed JSON, or already revived. */
export type UnrevivedValue = { readonly parsed: unknown } | { readonly revived: unknown };

/** Revives a parsed JSON value through the saver's serializer. */
export type Reviver = (parsed: unknown) => Promise<unknown>;

/**
 * The value changes `jsonChanges` finds between the revived forms of two
 * unrevived values, reviving only the subtrees that differ.
 *
 * Sound because the upstream reviver is bottom-up and context-free: equal
 * parsed subtrees revive to equal values, a parsed array revives element
 * by element, and a parsed object without an `lc` marker or a `__proto__`
 * key revives key by key into a plain object (`isPlainObject`). Everything
 * else (records, scalars, kind changes, depth limit) is revived and
 * compared as `jsonChanges` compares it.
 */
export async function unrevivedChanges(pointer: string, before: UnrevivedValue, after: UnrevivedValue, revive: Reviver, isPlainObject: (v: unknown) => boolean, out: ThreadValueChange[]): Promise<void> {
  const json = async (v: unknown, depth: number): Promise<ThreadJson> => toThreadJson(await revive(v), depth);
  const walk = async (p: string, a: unknown, b: unknown, depth: number): Promise<void> => {
    if (parsedEqual(a, b)) return;
    if (depth < MAX_DEPTH && Array.isArray(a) && Array.isArray(b)) {
      const n = Math.max(a.length, b.length);
      for (let i = 0; i < n; i++) {
        const q = `${p}/${i}`;
        if (i >= a.length) out.push({ pointer: q, kind: 'added', before: null, after: await json(b[i], depth + 1) });
        else if (i >= b.length) out.push({ pointer: q, kind: 'removed', before: await json(a[i], depth + 1), after: null });
        else await walk(q, a[i], b[i], depth + 1);
      }
      return;
    }
    if (depth < MAX_DEPTH && isPlainObject(a) && isPlainObject(b)) {
      const ra = a as Record<string, unknown>;
      const rb = b as Record<string, unknown>;
      for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
        const q = `${p}/${escapeToken(k)}`;
        const inA = Object.prototype.hasOwnProperty.call(ra, k);
        const inB = Object.prototype.hasOwnProperty.call(rb, k);
        if (inA && inB && ((Array.isArray(ra[k]) && Array.isArray(rb[k])) || (isPlainObject(ra[k]) && isPlainObject(rb[k])) || parsedEqual(ra[k], rb[k]))) {
          await walk(q, ra[k], rb[k], depth + 1);
          continue;
        }
        // A member whose revived value is undefined (or a function) is absent from the JSON form, as toThreadJson drops it.
        const va = inA ? await revive(ra[k]) : undefined;
        const vb = inB ? await revive(rb[k]) : undefined;
        const hasA = va !== undefined && typeof va !== 'function';
        const hasB = vb !== undefined && typeof vb !== 'function';
        if (!hasA && hasB) out.push({ pointer: q, kind: 'added', before: null, after: toThreadJson(vb, depth + 1) });
        else if (hasA && !hasB) out.push({ pointer: q, kind: 'removed', before: toThreadJson(va, depth + 1), after: null });
        else if (hasA && hasB) jsonChanges(q, toThreadJson(va, depth + 1), toThreadJson(vb, depth + 1), out);
      }
      return;
    }
    jsonChanges(p, await json(a, depth), await json(b, depth), out);
  };
  if ('parsed' in before && 'parsed' in after) return walk(pointer, before.parsed, after.parsed, 0);
  const side = async (v: UnrevivedValue): Promise<ThreadJson> => ('parsed' in v ? json(v.parsed, 0) : toThreadJson(v.revived));
  jsonChanges(pointer, await side(before), await side(after), out);
}

/** `diffChannels` over unrevived channel values: the same summary and changes, reviving only what differs. */
export async function diffUnrevivedChannels(
  before: ReadonlyMap<string, UnrevivedValue>,
  after: ReadonlyMap<string, UnrevivedValue>,
  revive: Reviver,
  isPlainObject: (v: unknown) => boolean,
  checkpoint: () => void = () => undefined,
): Promise<{ channels: ThreadChannelSummary[]; changes: ThreadValueChange[] }> {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const channels: ThreadChannelSummary[] = [];
  const changes: ThreadValueChange[] = [];
  const whole = async (v: UnrevivedValue): Promise<ThreadJson> => ('parsed' in v ? toThreadJson(await revive(v.parsed)) : toThreadJson(v.revived));
  for (const channel of names) {
    checkpoint(); // a cancellation is observed between channels
    const p = `/${escapeToken(channel)}`;
    const start = changes.length;
    const a = before.get(channel);
    const b = after.get(channel);
    let change: ThreadChannelChange;
    if (a === undefined) {
      change = 'added';
      changes.push({ pointer: p, kind: 'added', before: null, after: b === undefined ? null : await whole(b) });
    } else if (b === undefined) {
      change = 'removed';
      changes.push({ pointer: p, kind: 'removed', before: await whole(a), after: null });
    } else {
      await unrevivedChanges(p, a, b, revive, isPlainObject, changes);
      change = changes.length === start ? 'unchanged' : 'modified';
    }
    channels.push({ channel, change, changes: changes.length - start });
  }
  return { channels, changes };
}
