import { CANONICAL_LIMITS } from './arrow-limits';

/**
 * Bounded structural verification of an untrusted Arrow IPC *file*, before any decoder sees it.
 *
 * The Arrow library trusts the flatbuffer metadata it reads: a vector length
 * or a vtable taken from attacker bytes drives its loops and allocations (one
 * four-byte edit made `gf publish` spin for minutes while holding the writer
 * lock). This verifier walks every flatbuffer the file reader would touch
 * (footer, schema and its fields, each block's message, record and dictionary
 * batches) in the way the flatbuffers verifier does: every offset, vtable,
 * vector and string is checked against the bytes that hold it *before* it is
 * followed, so each loop is bounded by the file's size and no allocation is
 * sized by an unchecked number. Buffers and row counts are checked against
 * the message body and the file. Returns a reason code, or undefined when the
 * structure is sound (the decoder still decides the rest).
 */
export function verifyArrowFileStructure(bytes: Uint8Array): string | undefined {
  return verifyArrowFileStructureRanged(inMemory(bytes));
}

/** Ranged reads of a file whose structure is verified (only the metadata ranges are read). */
export interface RangedBytes {
  readonly byteLength: number;
  read(offset: number, length: number): Uint8Array;
}

function inMemory(bytes: Uint8Array): RangedBytes {
  return { byteLength: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length) };
}

/**
 * `verifyArrowFileStructure` over ranged reads: the same checks and reason codes, reading only the magic, footer and message metadata.
 *
 * Why: a stored participant of hundreds of MB is verified without holding it.
 */
export function verifyArrowFileStructureRanged(bytes: RangedBytes): string | undefined {
  try {
    verifyFile(bytes, { metadataBytes: 0 });
    return undefined;
  } catch (e) {
    if (e instanceof Malformed) return e.reason;
    throw e;
  }
}

/**
 * The UTF-8 bytes of every metadata key and value the file reader decodes
 * (the footer schema's and its fields', each block message's), counted while
 * the structure is verified; undefined when the structure is not sound.
 */
export function arrowFileMetadataBytes(bytes: RangedBytes): number | undefined {
  const seen = { metadataBytes: 0 };
  try {
    verifyFile(bytes, seen);
    return seen.metadataBytes;
  } catch (e) {
    if (e instanceof Malformed) return undefined;
    throw e;
  }
}

class Malformed extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function fail(reason: string): never {
  throw new Malformed(reason);
}

const MAX_FIELD_DEPTH = CANONICAL_LIMITS.maxDepth;
const MAX_FIELDS = CANONICAL_LIMITS.maxStructFields * 4;
const MAX_METADATA = CANONICAL_LIMITS.maxMetadataEntries;

/** A flatbuffer confined to one byte range. */
class Fb {
  readonly #v: DataView;
  readonly size: number;
  fields = 0;
  /** Key and value bytes of every metadata entry walked in this buffer. */
  metadataBytes = 0;

  constructor(bytes: Uint8Array, start: number, end: number) {
    if (start < 0 || end > bytes.length || start > end) fail('range');
    this.#v = new DataView(bytes.buffer, bytes.byteOffset + start, end - start);
    this.size = end - start;
  }

  #need(pos: number, n: number): void {
    if (!Number.isSafeInteger(pos) || pos < 0 || n < 0 || pos + n > this.size) fail('out_of_bounds');
  }

  u8(pos: number): number {
    this.#need(pos, 1);
    return this.#v.getUint8(pos);
  }

  u16(pos: number): number {
    this.#need(pos, 2);
    return this.#v.getUint16(pos, true);
  }

  i32(pos: number): number {
    this.#need(pos, 4);
    return this.#v.getInt32(pos, true);
  }

  u32(pos: number): number {
    this.#need(pos, 4);
    return this.#v.getUint32(pos, true);
  }

  i64(pos: number): number {
    this.#need(pos, 8);
    const v = this.#v.getBigInt64(pos, true);
    if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) fail('negative_or_huge_size');
    return Number(v);
  }

  /** The root table of this buffer. */
  root(): number {
    return this.table(0);
  }

  /** Follows the uoffset at `pos` to a table and verifies its vtable. */
  table(pos: number): number {
    const t = pos + this.u32(pos);
    const vt = t - this.i32(t);
    const vtSize = this.u16(vt);
    const tSize = this.u16(vt + 2);
    if (vtSize < 4 || vtSize % 2 !== 0) fail('vtable');
    this.#need(vt, vtSize);
    this.#need(t, Math.max(tSize, 4));
    for (let o = 4; o < vtSize; o += 2) if (this.u16(vt + o) >= Math.max(tSize, 4) && this.u16(vt + o) !== 0) fail('vtable_field');
    return t;
  }

  /** Position of field slot `i` of table `t`, or undefined when absent. */
  field(t: number, i: number): number | undefined {
    const vt = t - this.i32(t);
    const voff = 4 + 2 * i;
    if (voff >= this.u16(vt)) return undefined;
    const fo = this.u16(vt + voff);
    return fo === 0 ? undefined : t + fo;
  }

  /** The vector at field `i` (position of its first element and its length), bounds-checked for `elem` bytes per element. */
  vector(t: number, i: number, elem: number): { readonly at: number; readonly n: number } | undefined {
    const f = this.field(t, i);
    if (f === undefined) return undefined;
    const v = f + this.u32(f);
    const n = this.u32(v);
    if (n * elem > this.size - v - 4) fail('vector_length');
    this.#need(v + 4, n * elem);
    return { at: v + 4, n };
  }

  /** Verifies the string at field `i`; its byte length (0 when absent). */
  string(t: number, i: number): number {
    const s = this.vector(t, i, 1);
    if (s !== undefined) this.#need(s.at, s.n + 1);
    return s?.n ?? 0;
  }

  tableField(t: number, i: number): number | undefined {
    const f = this.field(t, i);
    return f === undefined ? undefined : this.table(f);
  }
}

function verifyMetadata(fb: Fb, t: number, slot: number): void {
  const kv = fb.vector(t, slot, 4);
  if (kv === undefined) return;
  if (kv.n > MAX_METADATA) fail('metadata_entries');
  for (let i = 0; i < kv.n; i++) {
    const e = fb.table(kv.at + 4 * i);
    fb.metadataBytes += fb.string(e, 0) + fb.string(e, 1);
  }
}

const TYPE_TIMESTAMP = 10;
const TYPE_UNION = 14;

function verifyField(fb: Fb, f: number, depth: number): void {
  if (depth > MAX_FIELD_DEPTH) fail('field_depth');
  if (++fb.fields > MAX_FIELDS) fail('field_count');
  fb.string(f, 0);
  const typeTypeAt = fb.field(f, 2);
  const typeType = typeTypeAt === undefined ? 0 : fb.u8(typeTypeAt);
  const type = fb.tableField(f, 3);
  if (type !== undefined && typeType === TYPE_TIMESTAMP) fb.string(type, 1);
  if (type !== undefined && typeType === TYPE_UNION) fb.vector(type, 1, 4);
  const dict = fb.tableField(f, 4);
  if (dict !== undefined) fb.tableField(dict, 1);
  const children = fb.vector(f, 5, 4);
  for (let i = 0; i < (children?.n ?? 0); i++) verifyField(fb, fb.table((children as { at: number }).at + 4 * i), depth + 1);
  verifyMetadata(fb, f, 6);
}

function verifySchema(fb: Fb, s: number): void {
  const fields = fb.vector(s, 1, 4);
  for (let i = 0; i < (fields?.n ?? 0); i++) verifyField(fb, fb.table((fields as { at: number }).at + 4 * i), 1);
  verifyMetadata(fb, s, 2);
  fb.vector(s, 3, 8);
}

const HEADER_SCHEMA = 1;
const HEADER_DICTIONARY = 2;
const HEADER_RECORD_BATCH = 3;

function verifyRecordBatch(fb: Fb, rb: number, bodyLength: number): void {
  const maxRows = Math.min(CANONICAL_LIMITS.maxRows, bodyLength * 8 + 64);
  const lenAt = fb.field(rb, 0);
  if (lenAt !== undefined && fb.i64(lenAt) > maxRows) fail('row_count');
  const nodes = fb.vector(rb, 1, 16);
  for (let i = 0; i < (nodes?.n ?? 0); i++) {
    const at = (nodes as { at: number }).at + 16 * i;
    if (fb.i64(at) > maxRows || fb.i64(at + 8) > maxRows) fail('node_length');
  }
  const buffers = fb.vector(rb, 2, 16);
  for (let i = 0; i < (buffers?.n ?? 0); i++) {
    const at = (buffers as { at: number }).at + 16 * i;
    const off = fb.i64(at);
    const len = fb.i64(at + 8);
    if (off + len > bodyLength) fail('buffer_outside_body');
  }
  const comp = fb.tableField(rb, 3);
  void comp;
  fb.vector(rb, 4, 8);
}

/** One IPC message at `offset` (continuation marker or legacy length prefix); returns its header type. */
/** The flatbuffer in `[start, end)` of the file (a `range` failure outside it). */
function fbAt(bytes: RangedBytes, start: number, end: number): Fb {
  if (start < 0 || end > bytes.byteLength || start > end) fail('range');
  return new Fb(bytes.read(start, end - start), 0, end - start);
}

function verifyMessage(bytes: RangedBytes, offset: number, limit: number, expectBody: number | undefined, seen: { metadataBytes: number }): number {
  const head = fbAt(bytes, offset, Math.min(limit, offset + 8));
  let len = head.i32(0);
  let start = offset + 4;
  if (len === -1) {
    len = head.i32(4);
    start = offset + 8;
  }
  if (len <= 0 || start + len > limit) fail('message_length');
  const fb = fbAt(bytes, start, start + len);
  const m = fb.root();
  const htAt = fb.field(m, 1);
  const headerType = htAt === undefined ? 0 : fb.u8(htAt);
  const bodyAt = fb.field(m, 3);
  const bodyLength = bodyAt === undefined ? 0 : fb.i64(bodyAt);
  if (expectBody !== undefined && bodyLength > expectBody) fail('body_length');
  if (start + len + bodyLength > bytes.byteLength) fail('body_outside_file');
  const header = fb.tableField(m, 2);
  if (header !== undefined) {
    if (headerType === HEADER_SCHEMA) verifySchema(fb, header);
    else if (headerType === HEADER_RECORD_BATCH) verifyRecordBatch(fb, header, bodyLength);
    else if (headerType === HEADER_DICTIONARY) {
      const data = fb.tableField(header, 1);
      if (data !== undefined) verifyRecordBatch(fb, data, bodyLength);
    } else fail('message_type');
  }
  verifyMetadata(fb, m, 4);
  seen.metadataBytes += fb.metadataBytes;
  return headerType;
}

const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"

function verifyFile(bytes: RangedBytes, seen: { metadataBytes: number }): void {
  const size = bytes.byteLength;
  if (size < 8 + 10 + 8) fail('too_short');
  const head = bytes.read(0, 6);
  const end = bytes.read(size - 6, 6);
  for (let i = 0; i < 6; i++) if (head[i] !== MAGIC[i] || end[i] !== MAGIC[i]) fail('magic');
  const tail = fbAt(bytes, size - 10, size);
  const footerLen = tail.i32(0);
  const footerStart = size - 10 - footerLen;
  if (footerLen <= 0 || footerStart < 8) fail('footer_length');
  // Messages are read through the footer's blocks (the file reader never reads a stream schema message).
  const fb = fbAt(bytes, footerStart, size - 10);
  const footer = fb.root();
  const schema = fb.tableField(footer, 1);
  if (schema === undefined) fail('footer_schema');
  verifySchema(fb, schema);
  seen.metadataBytes += fb.metadataBytes;
  for (const slot of [2, 3]) {
    const blocks = fb.vector(footer, slot, 24);
    for (let i = 0; i < (blocks?.n ?? 0); i++) {
      const at = (blocks as { at: number }).at + 24 * i;
      const offset = fb.i64(at);
      const metaLen = fb.i32(at + 8);
      const bodyLen = fb.i64(at + 16);
      if (offset < 8 || metaLen <= 0 || offset + metaLen + bodyLen > footerStart) fail('block_outside_file');
      const ht = verifyMessage(bytes, offset, offset + metaLen, bodyLen, seen);
      if (ht !== (slot === 2 ? HEADER_DICTIONARY : HEADER_RECORD_BATCH)) fail('block_message_type');
    }
  }
}
