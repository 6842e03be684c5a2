import type { Table } from 'apache-arrow';
import { GfError } from '../errors';
import { canonicalJsonOrNull } from './codec';
import type { CellValue } from './columns';
import type { Columns, RecordFamily, ReferenceSpec } from './family';
import { assertFamilySchema, columnsOf, identityComparator } from './records';
import { RECORD_FAMILIES, familyByKey } from './registry';
import { documentField } from './families';
import type { OntologyModel } from './workspace-documents';

/**
 * One rule violation: where, never what.
 *
 * `rule` is the stable rule id; `row` the row number in the participant as
 * stored (identity order); `field` a declared column name when one applies.
 */
export interface ValidationIssue {
  readonly rule: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  readonly row: number;
  readonly field?: string;
}

function toError(issue: ValidationIssue): GfError {
  return new GfError('GF_VALIDATION', `participant breaks rule ${issue.rule}`, { ...issue });
}

function issueOf(family: RecordFamily, rule: string, row: number, field?: string): ValidationIssue {
  return {
    rule,
    capability_id: family.capabilityId,
    record_family_id: family.recordFamilyId,
    row,
    ...(field === undefined ? {} : { field }),
  };
}

function* participantIssueStream(family: RecordFamily, cols: Columns): Generator<ValidationIssue> {
  for (const f of family.fields) {
    const values = cols.col(f.name);
    if (!f.nullable) {
      for (let row = 0; row < values.length; row++) {
        if (values[row] === null) yield issueOf(family, 'participant.required_field', row, f.name);
      }
    }
    if (f.enumValues !== undefined) {
      const allowed: ReadonlySet<CellValue> = new Set(f.enumValues);
      for (let row = 0; row < values.length; row++) {
        const v = values[row] ?? null;
        if (v !== null && !allowed.has(v)) yield issueOf(family, 'participant.enum_value', row, f.name);
      }
    }
    if (f.json === true) {
      for (let row = 0; row < values.length; row++) {
        const v = values[row] ?? null;
        if (v === null) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(v as string);
        } catch (_e) {
          parsed = undefined;
        }
        if (parsed === undefined || canonicalJsonOrNull(parsed) !== v) {
          yield issueOf(family, 'participant.canonical_json', row, f.name);
        }
      }
    }
  }
  const cmp = identityComparator(family, cols);
  for (let row = 1; row < cols.rowCount; row++) {
    const c = cmp(row - 1, row);
    if (c === 0) yield issueOf(family, 'participant.identity_unique', row);
    else if (c > 0) yield issueOf(family, 'participant.identity_order', row);
  }
  for (const rule of family.rules) {
    for (const row of rule.check(cols)) yield issueOf(family, rule.id, row);
  }
}

function take<T>(it: Iterable<T>, limit: number): T[] {
  const out: T[] = [];
  if (limit <= 0) return out;
  for (const x of it) {
    out.push(x);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Up to `limit` domain-rule violations of one participant, in a fixed order.
 *
 * Generic rules first (`participant.required_field`, `participant.enum_value`,
 * `participant.canonical_json`, per field in schema order; then
 * `participant.identity_unique` / `participant.identity_order`), then the
 * family's own rules in declared order. A foreign schema is
 * `GF_SCHEMA_MISMATCH`.
 */
export function participantIssues(family: RecordFamily, table: Table, limit = 100): ValidationIssue[] {
  assertFamilySchema(family, table);
  return take(participantIssueStream(family, columnsOf(family, table)), limit);
}

/**
 * Throws `GF_VALIDATION` with the first domain-rule violation of a participant.
 *
 * Details are `{ rule, capability_id, record_family_id, row, field? }`,
 * never values.
 */
export function validateParticipant(family: RecordFamily, table: Table): void {
  const [first] = participantIssues(family, table, 1);
  if (first !== undefined) throw toError(first);
}

/**
 * The participants of one complete generation, read lazily.
 *
 * `get` may decode on demand; validation asks only for the participants its
 * selected rules read.
 */
export interface ParticipantSnapshot {
  families(): Iterable<string>;
  get(familyKey: string): Table | undefined;
  /** The generation being published, when the snapshot is a publication's candidate. */
  readonly generationUuid?: string;
}

/** Cell access to a snapshot's participants, decoded and extracted at most once per validation. */
export interface SnapshotColumns {
  columns(familyKey: string): Columns | undefined;
  /** The generation being published (absent when an existing generation is validated). */
  readonly generationUuid?: string;
}

/**
 * A cross-domain rule over a snapshot.
 *
 * `reads` lists every family the rule looks at (so a change to any of them
 * re-runs it and a change to none skips it); violations are rows of
 * `subject`.
 */
export interface SnapshotRule {
  readonly id: string;
  readonly subject: string;
  readonly reads: readonly string[];
  check(snapshot: SnapshotColumns): Iterable<{ readonly row: number; readonly field?: string }>;
}

function referenceRule(subject: string, ref: ReferenceSpec): SnapshotRule {
  return {
    id: ref.rule,
    subject,
    reads: subject === ref.target ? [subject] : [subject, ref.target],
    *check(snapshot) {
      const rows = snapshot.columns(subject);
      if (rows === undefined || rows.rowCount === 0) return;
      const keys = new Set(snapshot.columns(ref.target)?.col(ref.targetField) ?? []);
      const when = ref.when === undefined ? undefined : rows.col(ref.when.field);
      const fields = ref.fields.map((f) => [f, rows.col(f)] as const);
      for (let row = 0; row < rows.rowCount; row++) {
        if (when !== undefined && when[row] !== ref.when?.equals) continue;
        for (const [field, values] of fields) {
          const v = values[row] ?? null;
          if (v !== null && !keys.has(v)) yield { row, field };
        }
      }
    },
  };
}

const CONFIGURATION = 'workspace/configuration';
const ONTOLOGY = 'workspace/ontology';

/** The adopted model when the ontology document's mode is strict (the document's own mode is authoritative). */
function strictOntology(snapshot: SnapshotColumns): OntologyModel | undefined {
  const doc = snapshot.columns(ONTOLOGY);
  if (doc === undefined || documentField(doc, 'mode')?.value !== 'strict') return undefined;
  const model = documentField(doc, 'canonical_ontology')?.value as OntologyModel | null | undefined;
  return model ?? { classes: [], relations: [] };
}

function ontologyIds(ontology: OntologyModel, kind: 'class' | 'relation'): ReadonlySet<CellValue> {
  return new Set<CellValue>((kind === 'class' ? ontology.classes : ontology.relations).map((e) => e.id));
}

function inOntologyRule(id: string, subject: string, field: string, kind: 'class' | 'relation'): SnapshotRule {
  return {
    id,
    subject,
    reads: [CONFIGURATION, ONTOLOGY, subject],
    *check(snapshot) {
      // The (small) ontology and configuration first: outside strict mode the subject is never decoded.
      const ontology = strictOntology(snapshot);
      if (ontology === undefined) return;
      const rows = snapshot.columns(subject);
      if (rows === undefined || rows.rowCount === 0) return;
      const allowed = ontologyIds(ontology, kind);
      const values = rows.col(field);
      for (let row = 0; row < rows.rowCount; row++) if (!allowed.has(values[row] ?? null)) yield { row, field };
    },
  };
}

const RESTORATION = 'workspace/restoration_transition';

const CUSTOM_RULES: readonly SnapshotRule[] = [
  {
    // The configuration repeats the ontology document's mode (ADR-0014: both participants change together).
    id: 'workspace.configuration.ontology_mode_matches',
    subject: CONFIGURATION,
    reads: [CONFIGURATION, ONTOLOGY],
    *check(snapshot) {
      const cfg = snapshot.columns(CONFIGURATION);
      const onto = snapshot.columns(ONTOLOGY);
      if (cfg === undefined || onto === undefined) return;
      const mode = documentField(cfg, 'ontology_mode');
      if (mode !== undefined && mode.value !== documentField(onto, 'mode')?.value) yield { row: mode.row, field: 'value' };
    },
  },
  {
    // restoration_transition@1: its one row names the generation that contains it (checked when publishing).
    id: 'workspace.restoration_transition.containing_generation',
    subject: RESTORATION,
    reads: [RESTORATION],
    *check(snapshot) {
      const r = snapshot.columns(RESTORATION);
      if (r === undefined || snapshot.generationUuid === undefined) return;
      const restored = r.col('restored_generation_uuid');
      for (let row = 0; row < r.rowCount; row++) {
        if (restored[row] !== snapshot.generationUuid) yield { row, field: 'restored_generation_uuid' };
      }
    },
  },
  // Under ontology mode "strict", node classes and assertion predicates must be declared.
  inOntologyRule('graph.node.class_in_ontology', 'graph/node', 'class_id', 'class'),
  inOntologyRule('knowledge.assertion.predicate_in_ontology', 'knowledge/assertion', 'predicate', 'relation'),
  {
    // A hypothesis marked superseded names its successor in a supersession record.
    id: 'epistemic.hypothesis.superseded_status',
    subject: 'epistemic/hypothesis',
    reads: ['epistemic/hypothesis', 'epistemic/supersession'],
    *check(snapshot) {
      const h = snapshot.columns('epistemic/hypothesis');
      if (h === undefined) return;
      const superseded = new Set(snapshot.columns('epistemic/supersession')?.col('superseded_hypothesis_uuid') ?? []);
      const ids = h.col('hypothesis_uuid');
      const status = h.col('status');
      for (let row = 0; row < h.rowCount; row++) {
        if (status[row] === 'superseded' && !superseded.has(ids[row] ?? null)) yield { row, field: 'status' };
      }
    },
  },
  {
    // A declared capability that the registry knows must be declared at the registered version.
    id: 'capabilities.declaration.registered_version',
    subject: 'capabilities/declaration',
    reads: ['capabilities/declaration'],
    *check(snapshot) {
      const d = snapshot.columns('capabilities/declaration');
      if (d === undefined) return;
      const known = new Map(RECORD_FAMILIES.map((f) => [f.capabilityId, f.capabilityVersion] as const));
      const ids = d.col('capability_id');
      const versions = d.col('capability_version');
      for (let row = 0; row < d.rowCount; row++) {
        const v = known.get(ids[row] as string);
        if (v !== undefined && v !== versions[row]) yield { row, field: 'capability_version' };
      }
    },
  },
];

/**
 * Every cross-domain rule: the references each family declares (registry
 * order), then the rules that are not plain references.
 */
export const SNAPSHOT_RULES: readonly SnapshotRule[] = Object.freeze([
  ...RECORD_FAMILIES.flatMap((f) => f.references.map((r) => referenceRule(f.key, r))),
  ...CUSTOM_RULES,
]);

/** Options of `validateSnapshot`. */
export interface SnapshotValidationOptions {
  /** Family keys whose participants changed; only rules reading one of them run. Absent: everything runs. */
  readonly changed?: ReadonlySet<string>;
  /** Also run the domain rules of each (changed) participant. Default true. */
  readonly domain?: boolean;
}

function safeKey(key: string): string {
  return /^[a-z0-9_]{1,64}\/[a-z0-9_]{1,64}$/.test(key) ? key : 'unprintable';
}

/**
 * Throws `GF_VALIDATION` with the first violation in a complete snapshot.
 *
 * A participant whose family is not registered is `GF_SCHEMA_MISMATCH`
 * (structural, never silently skipped). With `changed`, domain rules run
 * only for the changed participants and cross-domain rules only when they
 * read a changed family, so unchanged large participants are decoded only
 * when a selected rule needs them. Rule order, and therefore which violation
 * is reported, is fixed.
 */
export function validateSnapshot(snapshot: ParticipantSnapshot, opts: SnapshotValidationOptions = {}): void {
  const { present, view } = snapshotColumns(snapshot);
  const changed = opts.changed;
  const selected = (key: string): boolean => changed === undefined || changed.has(key);
  if (opts.domain !== false) {
    for (const family of RECORD_FAMILIES) {
      if (!present.has(family.key) || !selected(family.key)) continue;
      const cols = view.columns(family.key);
      if (cols === undefined) continue;
      const first = participantIssueStream(family, cols).next();
      if (first.done !== true) throw toError(first.value);
    }
  }
  for (const rule of SNAPSHOT_RULES) {
    if (!rule.reads.some(selected)) continue;
    assertRule(rule, view);
  }
}

/**
 * The families of a snapshot and a cell view over them that decodes each
 * participant (and checks its schema) on first use only, at most once.
 *
 * `GF_SCHEMA_MISMATCH` for a participant of an unregistered family (its key
 * reported in a safe form). Shared by every snapshot validation (publication
 * here, complete-snapshot validation in core/checkpoints).
 */
export function snapshotColumns(snapshot: ParticipantSnapshot): { readonly present: ReadonlySet<string>; readonly view: SnapshotColumns } {
  const present = new Set<string>();
  for (const key of snapshot.families()) {
    if (familyByKey(key) === undefined) {
      throw new GfError('GF_SCHEMA_MISMATCH', 'participant of an unregistered record family', {
        family_key: safeKey(key),
      });
    }
    present.add(key);
  }
  const cache = new Map<string, Columns | undefined>();
  const view: SnapshotColumns = {
    ...(snapshot.generationUuid === undefined ? {} : { generationUuid: snapshot.generationUuid }),
    columns(key) {
      if (cache.has(key)) return cache.get(key);
      const family = familyByKey(key);
      const table = present.has(key) ? snapshot.get(key) : undefined;
      let cols: Columns | undefined;
      if (family !== undefined && table !== undefined) {
        assertFamilySchema(family, table);
        cols = columnsOf(family, table);
      }
      cache.set(key, cols);
      return cols;
    },
  };
  return { present, view };
}

/** Runs one cross-domain rule: `GF_VALIDATION` naming the rule, family, row (and field) of its first violation. */
export function assertRule(rule: SnapshotRule, view: SnapshotColumns): void {
  const family = familyByKey(rule.subject);
  if (family === undefined) return;
  for (const v of rule.check(view)) throw toError(issueOf(family, rule.id, v.row, v.field));
}
