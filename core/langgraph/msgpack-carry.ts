// Carrying stored msgpack bytes unchanged: a new checkpoint document is the
// target's own bytes with a few top-level members replaced, so every value
// Python wrote (floats, tuples, extension values this project may not fully
// understand) reaches the new checkpoint byte for byte. Only the framing of
// the format is read here (where one value ends); values are encoded by
// @msgpack/msgpack.
import { decode, encode } from '@msgpack/msgpack';
import { PythonDecodeError } from './python-serde';

function fail(what: string): never {
  throw new PythonDecodeError('undecodable', `the stored msgpack document ${what}`);
}

/** Where the one msgpack value starting at `pos` ends (iterative: no recursion on hostile nesting). */
export function msgpackValueEnd(b: Uint8Array, pos: number): number {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const need = (n: number) => {
    if (pos + n > b.length) fail('is truncated');
  };
  let pending = 1;
  while (pending > 0) {
    need(1);
    const t = b[pos] as number;
    pos += 1;
    pending -= 1;
    let skip = 0;
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) skip = 0;
    else if (t <= 0x8f) pending += 2 * (t & 0x0f);
    else if (t <= 0x9f) pending += t & 0x0f;
    else if (t <= 0xbf) skip = t & 0x1f;
    else if (t === 0xc4 || t === 0xd9) {
      need(1);
      skip = 1 + view.getUint8(pos);
    }
    else if (t === 0xc5 || t === 0xda) {
      need(2);
      skip = 2 + view.getUint16(pos);
    }
    else if (t === 0xc6 || t === 0xdb) {
      need(4);
      skip = 4 + view.getUint32(pos);
    }
    else if (t === 0xc7) {
      need(1);
      skip = 2 + view.getUint8(pos);
    }
    else if (t === 0xc8) {
      need(2);
      skip = 3 + view.getUint16(pos);
    }
    else if (t === 0xc9) {
      need(4);
      skip = 5 + view.getUint32(pos);
    }
    else if (t === 0xca || t === 0xce || t === 0xd2) skip = 4;
    else if (t === 0xcb || t === 0xcf || t === 0xd3) skip = 8;
    else if (t === 0xcc || t === 0xd0) skip = 1;
    else if (t === 0xcd || t === 0xd1) skip = 2;
    else if (t >= 0xd4 && t <= 0xd8) skip = 1 + (1 << (t - 0xd4));
    else if (t === 0xdc) {
      need(2);
      pending += view.getUint16(pos);
      skip = 2;
    }
    else if (t === 0xdd) {
      need(4);
      pending += view.getUint32(pos);
      skip = 4;
    }
    else if (t === 0xde) {
      need(2);
      pending += 2 * view.getUint16(pos);
      skip = 2;
    }
    else if (t === 0xdf) {
      need(4);
      pending += 2 * view.getUint32(pos);
      skip = 4;
    }
    else fail(`has the reserved byte 0x${t.toString(16)}`);
    need(skip);
    pos += skip;
    if (pending > b.length - pos + 1) fail('claims more members than it has bytes');
  }
  return pos;
}

function mapHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x80 | n);
  if (n < 0x10000) return Uint8Array.of(0xde, n >> 8, n & 0xff);
  return Uint8Array.of(0xdf, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** The header of a top-level map: its member count and where the members start. */
function readMapHeader(b: Uint8Array): { count: number; start: number } {
  const t = b[0];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (t !== undefined && t >= 0x80 && t <= 0x8f) return { count: t & 0x0f, start: 1 };
  if (t === 0xde && b.length >= 3) return { count: view.getUint16(1), start: 3 };
  if (t === 0xdf && b.length >= 5) return { count: view.getUint32(1), start: 5 };
  return fail('is not a map');
}

/**
 * The stored map `doc` with the string-keyed members in `replace` set to new values
 * (encoded by @msgpack/msgpack) and every other member's key and value carried byte for byte;
 * a replaced key the map lacks is appended.
 */
export function replaceMapMembers(doc: Uint8Array, replace: Readonly<Record<string, unknown>>): Uint8Array {
  const { count, start } = readMapHeader(doc);
  const parts: Uint8Array[] = [];
  const done = new Set<string>();
  let pos = start;
  for (let i = 0; i < count; i++) {
    const keyEnd = msgpackValueEnd(doc, pos);
    const valueEnd = msgpackValueEnd(doc, keyEnd);
    const keyBytes = doc.subarray(pos, keyEnd);
    const t = keyBytes[0] ?? 0;
    const key = t >= 0xa0 && t <= 0xbf ? new TextDecoder().decode(keyBytes.subarray(1)) : null; // LangGraph's member names are short strings
    if (key !== null && Object.prototype.hasOwnProperty.call(replace, key)) {
      parts.push(keyBytes, encode(replace[key]));
      done.add(key);
    } else {
      parts.push(doc.subarray(pos, valueEnd));
    }
    pos = valueEnd;
  }
  if (pos !== doc.length) fail('has bytes after its end');
  const added = Object.keys(replace).filter((k) => !done.has(k));
  for (const k of added) parts.push(encode(k), encode(replace[k]));
  const out = [mapHeader(count + added.length), ...parts];
  const bytes = new Uint8Array(out.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of out) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

/** One string-keyed member of a stored top-level map, decoded alone (`undefined` when absent), without decoding the rest. */
export function readMapMember(doc: Uint8Array, key: string): unknown {
  const { count, start } = readMapHeader(doc);
  let pos = start;
  for (let i = 0; i < count; i++) {
    const keyEnd = msgpackValueEnd(doc, pos);
    const valueEnd = msgpackValueEnd(doc, keyEnd);
    const t = doc[pos] ?? 0;
    if (t >= 0xa0 && t <= 0xbf && new TextDecoder().decode(doc.subarray(pos + 1, keyEnd)) === key) return decode(doc.subarray(keyEnd, valueEnd));
    pos = valueEnd;
  }
  return undefined;
}
