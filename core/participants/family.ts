import { Schema } from 'apache-arrow';
import { projectDomain, schemaFingerprint } from '../canonical';
import type { DomainTag, GraphforgeDomain } from '../canonical';
import { arrowFieldOf } from './columns';
import type { CellValue, FieldSpec } from './columns';
import type { Scope } from './scopes';

/** How a participant is stored: an Arrow IPC file, or one canonical JSON document + LF. */
export type Encoding = 'arrow' | 'json';

/**
 * Column access handed to a rule: cells in row order, extracted once per validation.
 *
 * Rules never see Arrow buffers, so they cannot depend on batch boundaries or
 * dictionary encoding.
 */
export interface Columns {
  readonly rowCount: number;
  /** The cells of a declared field (throws a bug, not a GF error, for an undeclared name). */
  col(name: string): readonly CellValue[];
}

/**
 * A domain rule over one participant.
 *
 * `id` is stable (`<capability>.<family>.<what>`) and is what errors carry;
 * `check` yields the row numbers (in participant order) that break the rule.
 */
export interface RecordRule {
  readonly id: string;
  /**
   * True when each row is judged on its own (no other row is read).
   *
   * Why: validation then hands the rule bounded row windows instead of whole
   * decoded columns, so memory stays bounded at millions of records.
   */
  readonly rowLocal?: boolean;
  check(rows: Columns): Iterable<number>;
}

/**
 * A cross-domain reference this family declares.
 *
 * Every non-null cell of each of `fields` must equal some `targetField` cell
 * of the participant `target` (a family key) in the same snapshot. With
 * `when`, only rows whose `when.field` equals `when.equals` are checked (for
 * polymorphic references such as lineage entities).
 */
export interface ReferenceSpec {
  readonly rule: string;
  readonly fields: readonly string[];
  readonly target: string;
  readonly targetField: string;
  readonly when?: { readonly field: string; readonly equals: string };
}

/** Everything the owner of a family declares; `defineFamily` derives the rest. */
export interface FamilySpec {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
  readonly recordFamilyId: string;
  readonly recordVersion: number;
  readonly scope: Scope;
  readonly encoding: Encoding;
  readonly description: string;
  readonly fields: readonly FieldSpec[];
  readonly identityFields: readonly string[];
  readonly recordUuidField: string | null;
  /** A contract domain when the family's records are that contract's payload; else a project domain is derived. */
  readonly fingerprintDomain?: GraphforgeDomain;
  readonly rules?: readonly RecordRule[];
  readonly references?: readonly ReferenceSpec[];
  /**
   * False for a record that belongs only to the generation that writes it
   * (the restoration record): a later publication does not carry it forward.
   * Default true.
   */
  readonly carriedForward?: boolean;
  /**
   * For a JSON family stored as ONE document with fixed top-level fields (the
   * workspace documents): the fields in document order. The family's table
   * is then one `(field, value)` row per document field, `value` being the
   * field's canonical JSON, so a record diff shows changes field by field.
   */
  readonly documentFields?: readonly string[];
}

/**
 * One registered record family (immutable).
 *
 * The tuple (capability id/version, record family id/version, encoding) plus
 * the schema fingerprint is what a manifest participant must match exactly;
 * identity is owner-declared and never guessed from column names.
 */
export interface RecordFamily {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
  readonly recordFamilyId: string;
  readonly recordVersion: number;
  readonly scope: Scope;
  readonly encoding: Encoding;
  readonly description: string;
  /** `<capability-id>/<record-family-id>`, the registry key. */
  readonly key: string;
  /** `<capability-id>/<record-family-id>.<encoding>`, the logical manifest path. */
  readonly relativePath: string;
  readonly fields: readonly FieldSpec[];
  /** Arrow schema with `graphforge.contract.*` metadata (record family, identity, enums, JSON cells). */
  readonly schema: Schema;
  /** Fingerprint of the canonical schema bytes (domain `graphforge/schema`), 64 lowercase hex; computed once. */
  readonly schemaFingerprint: string;
  /** Ordered, non-empty, non-nullable identity fields; participants are sorted by them. */
  readonly identityFields: readonly string[];
  /** The identity field that projects to the diff's nullable `record_uuid`, or null for composite identity. */
  readonly recordUuidField: string | null;
  /** Domain of whole-record fingerprints. */
  readonly fingerprintDomain: DomainTag;
  /** Domain of identity fingerprints (canonical bytes of the identity projection). */
  readonly identityFingerprintDomain: DomainTag;
  /** Domain of the record-set fingerprint of a whole participant (the summary diff's content identity, core/diff/page-record-set.ts). */
  readonly recordSetFingerprintDomain: DomainTag;
  readonly rules: readonly RecordRule[];
  readonly references: readonly ReferenceSpec[];
  /** False when a publication that does not write this family drops it instead of carrying it forward. */
  readonly carriedForward: boolean;
  /** Top-level fields of a one-document JSON family, in document order (see `FamilySpec.documentFields`). */
  readonly documentFields?: readonly string[];
  /** The spec of a declared field, or undefined. */
  field(name: string): FieldSpec | undefined;
}

/** Schema metadata key naming the family (`<capability>/<family>@<version>`). */
export const FAMILY_METADATA_KEY = 'graphforge.contract.record_family';
/** Schema metadata key listing the identity fields, comma-separated, in order. */
export const IDENTITY_METADATA_KEY = 'graphforge.contract.identity';

/** The registry key of a family: `<capability-id>/<record-family-id>`. */
export function familyKey(capabilityId: string, recordFamilyId: string): string {
  return `${capabilityId}/${recordFamilyId}`;
}

/**
 * Builds an immutable family from its owner's declaration.
 *
 * Checks the declaration's own consistency (a bug, not a GF error, when
 * wrong): identity fields exist, are non-nullable and non-empty; the
 * record-UUID field is an identity field of kind `uuid`; JSON families use
 * no float or timestamp columns (canonical JSON has only safe integers).
 */
export function defineFamily(spec: FamilySpec): RecordFamily {
  const byName = new Map(spec.fields.map((f) => [f.name, f] as const));
  const fail = (why: string): never => {
    throw new Error(`invariant violated: family ${spec.capabilityId}/${spec.recordFamilyId}: ${why}`);
  };
  if (byName.size !== spec.fields.length) fail('duplicate field');
  // The record diff keeps a record's changed fields as one 32-bit mask.
  if (spec.fields.length > 32) fail('more than 32 fields');
  if (spec.identityFields.length === 0) fail('empty identity');
  for (const name of spec.identityFields) {
    const f = byName.get(name);
    if (f === undefined || f.nullable) fail(`identity field ${name} missing or nullable`);
  }
  if (spec.recordUuidField !== null) {
    const f = byName.get(spec.recordUuidField);
    if (f?.kind !== 'uuid' || !spec.identityFields.includes(spec.recordUuidField)) fail('record uuid field');
  }
  for (const f of spec.fields) {
    if ((f.enumValues !== undefined || f.json === true) && f.kind !== 'utf8') fail(`${f.name}: enum/json on non-utf8`);
    if (spec.encoding === 'json' && (f.kind === 'float64' || f.kind === 'timestamp_us')) fail(`${f.name}: JSON kind`);
  }
  if (spec.documentFields !== undefined) {
    const [f, v] = spec.fields;
    const ok = spec.encoding === 'json' && spec.fields.length === 2 && f?.name === 'field' && v?.name === 'value' && v.json === true && !v.nullable;
    if (!ok || spec.identityFields.join() !== 'field') fail('document family shape');
  }
  for (const r of spec.references ?? []) {
    for (const name of r.fields) if (!byName.has(name)) fail(`reference field ${name}`);
    if (r.when !== undefined && !byName.has(r.when.field)) fail(`reference condition ${r.when.field}`);
  }
  const key = familyKey(spec.capabilityId, spec.recordFamilyId);
  const schema = new Schema(
    spec.fields.map(arrowFieldOf),
    new Map([
      [FAMILY_METADATA_KEY, `${key}@${spec.recordVersion}`],
      [IDENTITY_METADATA_KEY, spec.identityFields.join(',')],
    ]),
  );
  const domainBase = `${spec.capabilityId}.${spec.recordFamilyId}@${spec.recordVersion}`;
  let fingerprintMemo: string | undefined;
  return Object.freeze({
    capabilityId: spec.capabilityId,
    capabilityVersion: spec.capabilityVersion,
    recordFamilyId: spec.recordFamilyId,
    recordVersion: spec.recordVersion,
    scope: spec.scope,
    encoding: spec.encoding,
    description: spec.description,
    key,
    relativePath: `${key}.${spec.encoding}`,
    fields: Object.freeze([...spec.fields]),
    schema,
    get schemaFingerprint(): string {
      if (fingerprintMemo === undefined) fingerprintMemo = schemaFingerprint(schema);
      return fingerprintMemo;
    },
    identityFields: Object.freeze([...spec.identityFields]),
    recordUuidField: spec.recordUuidField,
    fingerprintDomain: spec.fingerprintDomain ?? projectDomain(domainBase),
    identityFingerprintDomain: projectDomain(domainBase, 'identity'),
    recordSetFingerprintDomain: projectDomain(domainBase, 'record-set'),
    rules: Object.freeze([...(spec.rules ?? [])]),
    references: Object.freeze([...(spec.references ?? [])]),
    carriedForward: spec.carriedForward ?? true,
    ...(spec.documentFields === undefined ? {} : { documentFields: Object.freeze([...spec.documentFields]) }),
    field: (name: string) => byName.get(name),
  });
}
