// In-memory diff endpoints built from real participants (core/participants codec).
import { Dictionary, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableToIPC, vectorFromArray } from 'apache-arrow';
import type { Data, Field } from 'apache-arrow';
import { sha256, sha256Hex, uuidV8 } from '../../../../core/canonical';
import type { DiffEndpoint, EndpointParticipant } from '../../../../core/diff/plan-endpoint';
import { verifiedBytes } from '../../../../core/project';
import type { VerifiedObject } from '../../../../core/project';
import { GfError } from '../../../../core/errors';
import { RECORD_FAMILIES, encodeRecords, familyByKey, tableFromRecords } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { DEFAULT_CONFIGURATION, documentRows } from '../../../../core/participants/document-values';
import { WORKSPACE_CONFIGURATION_FIELDS } from '../../../../core/contract/workspace';

/** The rows of a valid workspace_configuration@1 document whose embedding model id is `modelId` (one text-keyed row per field). */
export function configurationRows(modelId: string): { field: string; value: string }[] {
  return documentRows({ ...DEFAULT_CONFIGURATION, embedding_configuration: { model_id: modelId } }, WORKSPACE_CONFIGURATION_FIELDS);
}

/** A deterministic UUID from a label. */
export function uuidOf(label: string): string {
  return uuidV8(sha256(new TextEncoder().encode(label)));
}

/** 32 fixed bytes for tests. */
export const SECRET = new Uint8Array(32).fill(7);

/** A stored participant: its manifest entry and exact bytes. */
export interface StoredParticipant {
  readonly entry: EndpointParticipant;
  readonly bytes: Uint8Array;
}

/** The manifest entry + bytes of `bytes` stored for `family`. */
export function stored(family: RecordFamily, bytes: Uint8Array, over: Partial<EndpointParticipant> = {}, rowCount?: number): StoredParticipant {
  return {
    entry: {
      capabilityId: family.capabilityId,
      capabilityVersion: family.capabilityVersion,
      recordFamilyId: family.recordFamilyId,
      recordVersion: family.recordVersion,
      encoding: family.encoding,
      rowCount: rowCount ?? 0,
      schemaFingerprint: family.schemaFingerprint,
      contentSha256: sha256Hex(bytes),
      byteLength: bytes.length,
      ...over,
    },
    bytes,
  };
}

/** Stored participant of `records` (canonical encoding). */
export function storedRecords(family: RecordFamily, records: readonly object[]): StoredParticipant {
  return stored(family, encodeRecords(family, records), {}, records.length);
}

/** Counts participant reads per content digest. */
export type ReadLog = string[];

/**
 * A pinned in-memory endpoint.
 *
 * `reads` receives the family key of every participant read, so tests can
 * prove that unchanged participants are never read.
 */
export function endpoint(checkpointUuid: string, parts: readonly StoredParticipant[], reads: ReadLog = [], manifestSha256?: string): DiffEndpoint {
  const byDigest = new Map(parts.map((p) => [p.entry.contentSha256, p.bytes] as const));
  return {
    checkpointUuid,
    generationUuid: uuidOf(`gen-${checkpointUuid}`),
    manifestSha256: manifestSha256 ?? sha256Hex(new TextEncoder().encode(JSON.stringify(parts.map((p) => p.entry)))),
    participants: parts.map((p) => p.entry),
    readParticipantBytes(entry) {
      const b = byDigest.get(entry.contentSha256);
      if (b === undefined) throw new GfError('GF_PROJECT_CORRUPT', 'missing', {});
      reads.push(`${entry.capabilityId}/${entry.recordFamilyId}`);
      return b;
    },
  };
}

/** Every family's participant from a records map (absent keys: empty participant). */
export function workspace(records: Readonly<Record<string, readonly object[]>>): StoredParticipant[] {
  return RECORD_FAMILIES.map((f) => storedRecords(f, records[f.key] ?? []));
}

/** The family of a key (throws on an unknown key). */
export function fam(key: string): RecordFamily {
  const f = familyByKey(key);
  if (f === undefined) throw new Error(`unknown family ${key}`);
  return f;
}

/**
 * The same logical records in another physical layout: reversed row order,
 * batches of `batchRows` rows and every UTF-8 column dictionary-encoded
 * (Int32 indices, per-batch dictionaries), written as an Arrow IPC file.
 */
export function reencoded(family: RecordFamily, records: readonly object[], batchRows: number): Uint8Array {
  const reversed = [...records].reverse();
  const dictType = (): Dictionary => new Dictionary(new Utf8(), new Int32());
  const fields: Field[] = family.schema.fields.map((f) => (f.type instanceof Utf8 ? f.clone({ type: dictType() }) : f));
  const schema = new Schema(fields, family.schema.metadata);
  // One dictionary per column for the whole file (the IPC file format has no replacement dictionaries),
  // built in first-seen order of the reversed rows, so its ids and order differ from any canonical form.
  const dictData = new Map<string, Data>();
  family.schema.fields.forEach((f, k) => {
    if (!(f.type instanceof Utf8)) return;
    const values = (reversed as Record<string, unknown>[]).map((r) => (r[f.name] ?? null) as string | null);
    dictData.set(f.name, vectorFromArray(values, (fields[k] as Field).type as Dictionary).data[0] as Data);
  });
  const batches: RecordBatch[] = [];
  for (let at = 0; at < reversed.length; at += batchRows) {
    const chunk = reversed.slice(at, at + batchRows);
    const plain = tableFromRecords(family, chunk);
    const children = family.schema.fields.map((f) => {
      const d = dictData.get(f.name);
      return d === undefined ? (plain.getChild(f.name)?.data[0] as Data) : d.slice(at, chunk.length);
    });
    const struct = makeData({ type: new Struct(fields), length: chunk.length, nullCount: 0, children });
    batches.push(new RecordBatch(schema, struct));
  }
  return tableToIPC(new Table(schema, batches), 'file');
}

/** A source over bytes that counts what is read (bytes and calls). */
export function counting(bytes: Uint8Array): VerifiedObject & { readonly stats: { bytes: number; reads: number } } {
  const inner = verifiedBytes(bytes);
  const stats = { bytes: 0, reads: 0 };
  return {
    stats,
    byteLength: inner.byteLength,
    read(offset, length, into) {
      stats.bytes += length;
      stats.reads++;
      return inner.read(offset, length, into);
    },
    close: () => inner.close(),
  };
}

/** An endpoint whose participants are opened as counting ranged sources. */
export function rangedEndpoint(checkpointUuid: string, parts: readonly { entry: EndpointParticipant; bytes: Uint8Array }[], opened: ReturnType<typeof counting>[]): DiffEndpoint {
  const base = endpoint(checkpointUuid, parts);
  return {
    ...base,
    openParticipant(entry) {
      const s = counting(base.readParticipantBytes(entry));
      opened.push(s);
      return s;
    },
  };
}
