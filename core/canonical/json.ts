import { GfError } from '../errors';

/**
 * Nesting bound for JSON documents written by the engine.
 *
 * Formats written as canonical JSON (CURRENT, manifests, registry, intents)
 * are shallow; the bound keeps a hostile or cyclic value from exhausting the
 * stack and gives a stable code instead.
 */
export const JSON_MAX_DEPTH = 64;

/**
 * Orders two strings by Unicode code point (equivalently by UTF-8 bytes).
 *
 * `Array.prototype.sort`'s default compares UTF-16 code units, which puts
 * astral characters (surrogate pairs) before U+E000–U+FFFF; canonical JSON
 * must sort exactly like the byte-oriented implementations of the contract.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

function fixup(u: number): number {
  if (u >= 0xd800 && u <= 0xdfff) return u + 0x2000;
  if (u >= 0xe000) return u - 0x800;
  return u;
}

function fail(path: string, kind: string): never {
  throw new GfError('GF_CANONICAL_ENCODING', `value at ${path} cannot be written as canonical JSON (${kind})`, {
    position: path,
    kind,
  });
}

function write(value: unknown, sortKeys: boolean, path: string, depth: number, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) fail(path, 'non-finite number');
      if (!Number.isInteger(value)) fail(path, 'fractional number');
      if (!Number.isSafeInteger(value)) fail(path, 'unsafe integer');
      out.push(Object.is(value, -0) ? '0' : String(value));
      return;
    case 'object':
      break;
    default:
      fail(path, typeof value);
  }
  if (depth >= JSON_MAX_DEPTH) {
    throw new GfError('GF_CANONICAL_LIMIT', `canonical JSON nesting exceeds ${JSON_MAX_DEPTH}`, {
      position: path,
      limit: JSON_MAX_DEPTH,
    });
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], sortKeys, `${path}[${i}]`, depth + 1, out);
    }
    out.push(']');
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail(path, 'non-plain object');
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (sortKeys) keys.sort(compareCodePoints);
  out.push('{');
  let first = true;
  for (const k of keys) {
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    // Key names may be caller text: the position names the index, not the key.
    write(obj[k], sortKeys, `${path}.<key ${keys.indexOf(k)}>`, depth + 1, out);
  }
  out.push('}');
}

/**
 * Canonical JSON: object keys sorted by code point at every level, no whitespace.
 *
 * Only null, booleans, strings, safe integers, arrays and plain objects are
 * representable; anything else (fractional or non-finite numbers, bigint,
 * undefined, functions, class instances) is `GF_CANONICAL_ENCODING`, so two
 * writers can never disagree about a number's spelling. Strings use
 * `JSON.stringify` escaping. The result is a pure function of the value.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, true, '$', 0, out);
  return out.join('');
}

/**
 * Canonical JSON with object keys kept in insertion order.
 *
 * For formats that fix their field order (CURRENT, manifests, the checkpoint
 * registry and its intent): the caller builds objects in the documented order
 * and every other rule of `canonicalJson` applies unchanged. JavaScript lists
 * integer-like keys ("0", "17") first whatever the insertion order, so fixed
 * formats must not use such keys.
 */
export function orderedJson(value: unknown): string {
  const out: string[] = [];
  write(value, false, '$', 0, out);
  return out.join('');
}
