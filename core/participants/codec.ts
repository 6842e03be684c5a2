import { tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { canonicalJson, compareCodePoints } from '../canonical';
import { verifyArrowFileStructure } from '../canonical/arrow-ipc-verify';
import { GfError, isGfError } from '../errors';
import type { RecordFamily } from './family';
import { assertFamilySchema, canonicalizeParticipant, columnsOf, tableFromRecords } from './records';

/** `contract_version` of every JSON participant document. */
export const JSON_DOCUMENT_VERSION = 1;

const ARROW_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"
const UTF8_FATAL = new TextDecoder('utf-8', { fatal: true });

function familyTag(family: RecordFamily): string {
  return `${family.key}@${family.recordVersion}`;
}

/** `{"<field>":<value>,…}` + LF in the family's document order; the rows must name exactly those fields. */
function fieldDocument(family: RecordFamily, fields: readonly string[], table: Table): string {
  const cols = columnsOf(family, table);
  const names = cols.col('field');
  const values = cols.col('value');
  const byField = new Map<string, string>();
  for (let row = 0; row < cols.rowCount; row++) byField.set(names[row] as string, values[row] as string);
  if (byField.size !== fields.length || cols.rowCount !== fields.length || fields.some((f) => !byField.has(f))) {
    throw new GfError('GF_VALIDATION', 'the document must hold exactly its declared fields', {
      rule: 'participant.document_fields',
      record_family_id: family.recordFamilyId,
    });
  }
  const parts = fields.map((f, i) => {
    const v = byField.get(f) as string;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch (_e) {
      parsed = undefined;
    }
    if (parsed === undefined || canonicalJsonOrNull(parsed) !== v) {
      throw new GfError('GF_VALIDATION', 'a JSON cell is not canonical JSON', { rule: 'participant.canonical_json', record_family_id: family.recordFamilyId, row: i, field: 'value' });
    }
    return `${JSON.stringify(f)}:${v}`;
  });
  return `{${parts.join(',')}}\n`;
}

function jsonDocument(family: RecordFamily, table: Table): string {
  if (family.documentFields !== undefined) return fieldDocument(family, family.documentFields, table);
  const cols = columnsOf(family, table);
  const records: Record<string, unknown>[] = [];
  for (let row = 0; row < cols.rowCount; row++) {
    const rec: Record<string, unknown> = {};
    for (const f of family.fields) {
      const v = cols.col(f.name)[row] ?? null;
      if (f.json === true && v !== null) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(v as string);
        } catch (_e) {
          parsed = undefined;
        }
        // In a nullable JSON-valued field, the JSON value `null` would read back as an absent cell.
        if (parsed === undefined || canonicalJsonOrNull(parsed) !== v || (parsed === null && f.nullable)) {
          throw new GfError('GF_VALIDATION', 'a JSON cell is not canonical JSON', {
            rule: 'participant.canonical_json',
            record_family_id: family.recordFamilyId,
            row,
            field: f.name,
          });
        }
        rec[f.name] = parsed;
      } else {
        rec[f.name] = v;
      }
    }
    records.push(rec);
  }
  return `${canonicalJson({ contract_version: JSON_DOCUMENT_VERSION, record_family: familyTag(family), records })}\n`;
}

/** Canonical JSON of a parsed value, or null when the value has no canonical form (e.g. a fraction). */
export function canonicalJsonOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch (e) {
    if (isGfError(e)) return null;
    throw e;
  }
}

/**
 * The stored bytes of a participant.
 *
 * `arrow`: an Arrow IPC *file* of the canonical physical form (rows sorted by
 * identity, one batch, fresh buffers), so equal record sets give equal bytes
 * and equal `content_sha256` whatever the input order or chunking. `json`:
 * `{"contract_version":1,"record_family":"<key>@<version>","records":[…]}`
 * as canonical JSON + LF, records sorted by identity, every field present
 * (null explicit), JSON-valued cells embedded as values (in a non-nullable
 * JSON-valued field `null` is the JSON value; in a nullable one it is the
 * absent cell, so the JSON value null is refused there). A duplicate identity,
 * a null required field or a non-canonical JSON cell is `GF_VALIDATION`;
 * a foreign schema `GF_SCHEMA_MISMATCH`. Domain rules are not run here.
 */
export function encodeParticipant(family: RecordFamily, table: Table): Uint8Array {
  const canonical = canonicalizeParticipant(family, table);
  if (family.encoding === 'arrow') return tableToIPC(canonical, 'file');
  return new TextEncoder().encode(jsonDocument(family, canonical));
}

/** `encodeParticipant(family, tableFromRecords(family, records))`. */
export function encodeRecords(family: RecordFamily, records: readonly object[]): Uint8Array {
  return encodeParticipant(family, tableFromRecords(family, records));
}

function corrupt(family: RecordFamily, problem: string): never {
  throw new GfError('GF_PROJECT_CORRUPT', 'participant bytes are not a valid participant of their family', {
    capability_id: family.capabilityId,
    record_family_id: family.recordFamilyId,
    problem,
  });
}

/** Options of `decodeParticipant`. */
export interface DecodeOptions {
  /** The schema fingerprint the manifest declares; must equal the family's. */
  readonly schemaFingerprint?: string;
}

function isArrowFile(bytes: Uint8Array): boolean {
  if (bytes.length < 2 * ARROW_MAGIC.length + 2) return false;
  const end = bytes.length - ARROW_MAGIC.length;
  return ARROW_MAGIC.every((b, i) => bytes[i] === b && bytes[end + i] === b);
}

function decodeJson(family: RecordFamily, bytes: Uint8Array): Table {
  let text: string;
  try {
    text = UTF8_FATAL.decode(bytes);
  } catch (_e) {
    return corrupt(family, 'utf8');
  }
  if (!text.endsWith('\n')) corrupt(family, 'final_newline');
  let doc: unknown;
  try {
    doc = JSON.parse(text.slice(0, -1));
  } catch (_e) {
    return corrupt(family, 'json_syntax');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) corrupt(family, 'document_shape');
  const d = doc as Record<string, unknown>;
  if (family.documentFields !== undefined) return decodeFieldDocument(family, family.documentFields, d, bytes);
  const keys = Object.keys(d).sort();
  if (keys.join(',') !== 'contract_version,record_family,records') corrupt(family, 'document_keys');
  if (d.contract_version !== JSON_DOCUMENT_VERSION) corrupt(family, 'contract_version');
  if (d.record_family !== familyTag(family)) corrupt(family, 'record_family');
  if (!Array.isArray(d.records)) corrupt(family, 'records');
  const records = (d.records as unknown[]).map((r) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return corrupt(family, 'record_shape');
    const rec = r as Record<string, unknown>;
    if (Object.keys(rec).length !== family.fields.length) corrupt(family, 'record_fields');
    const out: Record<string, unknown> = {};
    for (const f of family.fields) {
      if (!(f.name in rec)) corrupt(family, 'record_fields');
      const v = rec[f.name];
      // A JSON-valued field embeds its value; `null` is the JSON value null unless the field is nullable.
      out[f.name] = f.json === true && (v !== null || !f.nullable) ? canonicalJsonOrNull(v) : v;
    }
    return out;
  });
  let table: Table;
  try {
    table = tableFromRecords(family, records);
    if (Buffer.compare(Buffer.from(encodeParticipant(family, table)), Buffer.from(bytes)) !== 0) {
      corrupt(family, 'not_canonical');
    }
  } catch (e) {
    if (isGfError(e) && e.code === 'GF_VALIDATION') corrupt(family, String(e.details.rule ?? 'records'));
    throw e;
  }
  return table;
}

function decodeFieldDocument(family: RecordFamily, fields: readonly string[], d: Record<string, unknown>, bytes: Uint8Array): Table {
  // Field order is part of the format: JSON.parse keeps the document's key order for these non-numeric keys.
  if (Object.keys(d).join(',') !== fields.join(',')) corrupt(family, 'document_keys');
  // Rows in identity order (the canonical participant order), whatever the document order.
  const records = fields.map((field) => ({ field, value: canonicalJsonOrNull(d[field]) })).sort((a, b) => compareCodePoints(a.field, b.field));
  let table: Table;
  try {
    table = tableFromRecords(family, records);
    if (Buffer.compare(Buffer.from(encodeParticipant(family, table)), Buffer.from(bytes)) !== 0) corrupt(family, 'not_canonical');
  } catch (e) {
    if (isGfError(e) && e.code === 'GF_VALIDATION') corrupt(family, String(e.details.rule ?? 'records'));
    throw e;
  }
  return table;
}

/**
 * The table of a stored participant.
 *
 * Structural failures of the stored bytes (not an Arrow IPC file, undecodable
 * IPC, invalid UTF-8, JSON that is not exactly the canonical document) are
 * `GF_PROJECT_CORRUPT`: stored bytes were verified against their SHA-256
 * before decoding, so a bad body means the project itself is damaged, not
 * that a caller sent bad input. A schema that is not the family's, or a
 * manifest fingerprint that is not the family's, is `GF_SCHEMA_MISMATCH`.
 * Domain rules (required fields, enums, ranges, identity order) are checked
 * by `validateParticipant`, not here, so reading a large participant costs
 * one IPC decode.
 */
export function decodeParticipant(family: RecordFamily, bytes: Uint8Array, opts: DecodeOptions = {}): Table {
  if (opts.schemaFingerprint !== undefined && opts.schemaFingerprint !== family.schemaFingerprint) {
    throw new GfError('GF_SCHEMA_MISMATCH', 'manifest schema fingerprint does not match the registered family', {
      capability_id: family.capabilityId,
      record_family_id: family.recordFamilyId,
      expected_schema_fingerprint: family.schemaFingerprint,
      actual_schema_fingerprint: /^[0-9a-f]{64}$/.test(opts.schemaFingerprint) ? opts.schemaFingerprint : 'invalid',
    });
  }
  if (family.encoding === 'json') return decodeJson(family, bytes);
  if (!isArrowFile(bytes)) corrupt(family, 'not_arrow_file');
  // Bounded in time and memory: every size in the metadata is checked against the file before the decoder loops or allocates.
  const malformed = verifyArrowFileStructure(bytes);
  if (malformed !== undefined) corrupt(family, `arrow_structure_${malformed}`);
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (_e) {
    return corrupt(family, 'arrow_decode');
  }
  assertFamilySchema(family, table);
  return table;
}
