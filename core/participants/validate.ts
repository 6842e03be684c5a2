import type { Data, Table } from 'apache-arrow';
import { ArrowFileRows } from '../canonical/arrow-file-rows';
import { GfError } from '../errors';
import { canonicalJsonOrNull } from './codec';
import type { CellValue } from './columns';
import type { Columns, RecordFamily, ReferenceSpec } from './family';
import { assertFamilySchema, columnsOf, identityComparator } from './records';
import { RECORD_FAMILIES, familyByKey } from './family-registry';
import { documentField } from './families';
import { isPlain } from './document-values';
import type { OntologyModel } from './document-values';
import type { CapabilitySettingId } from '../contract/workspace';
import { VALIDATION_WINDOW_ROWS, columnChunks, wholeTable, fixedBytes, isFixedColumn, compareKeys, keyIndexOf, rowWindows } from './window-cells';
import type { KeyIndex, ParticipantTable, RowWindow } from './window-cells';

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

/**
 * Every domain-rule violation of a participant, in the fixed order, visiting rows in windows.
 *
 * Per field in schema order: required (only when Arrow counts a null),
 * enum, canonical JSON; then identity uniqueness and order (a single UUID or
 * digest identity compared as bytes); then the family's rules, each over
 * row windows when it judges rows on their own, else over whole columns.
 */
function* participantIssueStream(family: RecordFamily, table: ParticipantTable, windowRows: number): Generator<ValidationIssue> {
  const windows = (): Generator<RowWindow> => rowWindows(family, table, windowRows);
  for (const f of family.fields) {
    if (!f.nullable && (table.getChild(f.name)?.nullCount ?? 0) > 0) {
      for (const w of windows()) {
        const values = w.cols.col(f.name);
        for (let row = 0; row < values.length; row++) {
          if (values[row] === null) yield issueOf(family, 'participant.required_field', w.start + row, f.name);
        }
      }
    }
    if (f.enumValues !== undefined) {
      const allowed: ReadonlySet<CellValue> = new Set(f.enumValues);
      for (const w of windows()) {
        const values = w.cols.col(f.name);
        for (let row = 0; row < values.length; row++) {
          const v = values[row] ?? null;
          if (v !== null && !allowed.has(v)) yield issueOf(family, 'participant.enum_value', w.start + row, f.name);
        }
      }
    }
    if (f.json === true) {
      for (const w of windows()) {
        const values = w.cols.col(f.name);
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
            yield issueOf(family, 'participant.canonical_json', w.start + row, f.name);
          }
        }
      }
    }
  }
  yield* identityIssues(family, table, windowRows);
  let whole: Columns | undefined;
  for (const rule of family.rules) {
    if (rule.rowLocal === true) {
      for (const w of windows()) for (const row of rule.check(w.cols)) yield issueOf(family, rule.id, w.start + row);
    } else {
      whole ??= columnsOf(family, wholeTable(table));
      for (const row of rule.check(whole)) yield issueOf(family, rule.id, row);
    }
  }
}

/** `participant.identity_unique` / `participant.identity_order` between each row and the one before it. */
function* identityIssues(family: RecordFamily, table: ParticipantTable, windowRows: number): Generator<ValidationIssue> {
  const [only, ...rest] = family.identityFields;
  const kind = only === undefined ? undefined : family.field(only)?.kind;
  const width = kind === 'uuid' ? 16 : kind === 'digest' ? 32 : 0;
  const vector = only === undefined ? null : table.getChild(only);
  if (only !== undefined && rest.length === 0 && width > 0 && vector !== null && vector.nullCount === 0 && isFixedColumn(table, only, width)) {
    // Lowercase hex text orders as its bytes: compare the bytes, no strings (one window of the column at a time).
    let prev: Uint8Array | undefined;
    let prevAt = 0;
    let row = 0;
    for (const d of columnChunks(table, only, windowRows)) {
      const bytes = fixedBytes(d, width) as Uint8Array;
      for (let j = 0; j < d.length; j++, row++) {
        if (prev !== undefined) {
          const c = compareKeys(prev, prevAt, bytes, j * width, width);
          if (c === 0) yield issueOf(family, 'participant.identity_unique', row);
          else if (c > 0) yield issueOf(family, 'participant.identity_order', row);
        }
        prev = bytes;
        prevAt = j * width;
      }
    }
    return;
  }
  // Windows that overlap by one row, so each row is compared with the one before it.
  for (let start = 0; start < table.numRows; start += windowRows) {
    const from = Math.max(0, start - 1);
    const w = rowWindows(family, table, start + windowRows - from, from).next().value;
    if (w === undefined) break;
    const cmp = identityComparator(family, w.cols);
    for (let i = 1; i < w.cols.rowCount; i++) {
      const c = cmp(i - 1, i);
      if (c === 0) yield issueOf(family, 'participant.identity_unique', from + i);
      else if (c > 0) yield issueOf(family, 'participant.identity_order', from + i);
    }
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
export function participantIssues(family: RecordFamily, table: ParticipantTable, limit = 100, windowRows = VALIDATION_WINDOW_ROWS): ValidationIssue[] {
  assertFamilySchema(family, table);
  return take(participantIssueStream(family, table, windowRows), limit);
}

/**
 * Throws `GF_VALIDATION` with the first domain-rule violation of a participant.
 *
 * Details are `{ rule, capability_id, record_family_id, row, field? }`,
 * never values.
 */
export function validateParticipant(family: RecordFamily, table: ParticipantTable, windowRows = VALIDATION_WINDOW_ROWS): void {
  const [first] = participantIssues(family, table, 1, windowRows);
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
  /**
   * The participant's stored file read by row ranges, when it is available that way (else `get` is used).
   *
   * Why: a participant of millions of records is then never decoded whole.
   */
  file?(familyKey: string): ArrowFileRows | undefined;
  /** The generation being published, when the snapshot is a publication's candidate. */
  readonly generationUuid?: string;
}

/** Access to a snapshot's participants for rules: whole cells of small ones, tables (schema checked) for windows and byte keys. */
export interface SnapshotColumns {
  columns(familyKey: string): Columns | undefined;
  /**
   * The participant itself (schema checked), for rules that visit rows in windows or compare keys as bytes.
   *
   * Why: whole decoded columns of a 10M-record participant do not fit in memory.
   */
  table(familyKey: string): ParticipantTable | undefined;
  /** Rows per window for rules that visit rows in windows. */
  readonly windowRows: number;
  /**
   * The key index of one family's column, built once per validation and forgotten with the family (`release`).
   *
   * Why: several references target the same keys (edge endpoints, assertion
   * subjects and objects, lineage entities all name graph nodes); one index
   * of millions of keys, not one per rule.
   */
  keys(familyKey: string, field: string): KeyIndex;
  /**
   * Forgets a participant no later rule reads (see `runSnapshotRules`), so a large one is not held to the end.
   *
   * Each participant is still decoded at most once per validation: reading it again is a bug.
   */
  release(familyKey: string): void;
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

/**
 * Validation windows a reference check looks up at once.
 *
 * Why: an index over a stored file answers a batch by one sorted sweep of
 * its blocks; 64 windows (262,144 rows, 4 MiB of UUIDs) make the sweeps few
 * at 10M records while the batch stays a few MiB at any size.
 */
export const REFERENCE_BATCH_WINDOWS = 64;

function referenceRule(subject: string, ref: ReferenceSpec): SnapshotRule {
  return {
    id: ref.rule,
    subject,
    reads: subject === ref.target ? [subject] : [subject, ref.target],
    *check(snapshot) {
      const table = snapshot.table(subject);
      const family = familyByKey(subject);
      const target = familyByKey(ref.target);
      if (table === undefined || table.numRows === 0 || family === undefined || target === undefined) return;
      // The target's keys (sorted bytes, or a set of cells for other kinds); the subject's rows a batch of windows at a time.
      const keys = snapshot.keys(ref.target, ref.targetField);
      const batch = snapshot.windowRows * REFERENCE_BATCH_WINDOWS;
      for (let from = 0; from < table.numRows; from += batch) {
        const to = Math.min(table.numRows, from + batch);
        const missing = ref.fields.map((f) => missingRows(keys, family, table, f, from, to, snapshot.windowRows));
        const when = ref.when === undefined ? undefined : cellsOf(family, table, ref.when.field, from, to, snapshot.windowRows);
        for (let row = 0; row < to - from; row++) {
          if (when !== undefined && when[row] !== ref.when?.equals) continue;
          for (let i = 0; i < ref.fields.length; i++) {
            if (missing[i]?.[row] === 1) yield { row: from + row, field: ref.fields[i] as string };
          }
        }
      }
    },
  };
}

/** The cells of one field for rows [from, to), decoded a window at a time. */
function cellsOf(family: RecordFamily, table: ParticipantTable, field: string, from: number, to: number, windowRows: number): CellValue[] {
  const out: CellValue[] = [];
  for (const w of rowWindows(family, table, windowRows, from, to)) for (const v of w.cols.col(field)) out.push(v ?? null);
  return out;
}

/** The fixed-width chunks of one field for rows [from, to), or undefined when a chunk is not `width`-byte binary. */
function fixedChunks(table: ParticipantTable, field: string, from: number, to: number, width: number): readonly Data[] | undefined {
  const chunks = table instanceof ArrowFileRows ? [table.column(field, from, to)] : (table.slice(from, to).getChild(field)?.data ?? []);
  return chunks.every((d) => fixedBytes(d, width) !== undefined) ? chunks : undefined;
}

/** Per row of [from, to): 1 when the cell is present and not a key. Fixed-width cells are looked up as bytes, all at once. */
function missingRows(keys: KeyIndex, family: RecordFamily, table: ParticipantTable, field: string, from: number, to: number, windowRows: number): Uint8Array {
  const out = new Uint8Array(to - from);
  const chunks = keys.width > 0 ? fixedChunks(table, field, from, to, keys.width) : undefined;
  if (chunks !== undefined) {
    let at = 0;
    for (const d of chunks) {
      keys.markMissing(d, out, at);
      at += d.length;
    }
    return out;
  }
  const values = cellsOf(family, table, field, from, to, windowRows);
  for (let row = 0; row < values.length; row++) {
    const v = values[row] ?? null;
    if (v !== null && !keys.has(v)) out[row] = 1;
  }
  return out;
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
      const table = snapshot.table(subject);
      const family = familyByKey(subject);
      if (table === undefined || table.numRows === 0 || family === undefined) return;
      const allowed = ontologyIds(ontology, kind);
      for (const w of rowWindows(family, table, snapshot.windowRows)) {
        const values = w.cols.col(field);
        for (let row = 0; row < values.length; row++) if (!allowed.has(values[row] ?? null)) yield { row: w.start + row, field };
      }
    },
  };
}

/** The value of one capability setting in the snapshot's configuration, or undefined when it is not set. */
function settingValue(snapshot: SnapshotColumns, id: CapabilitySettingId): unknown {
  const cfg = snapshot.columns(CONFIGURATION);
  const map = cfg === undefined ? undefined : documentField(cfg, 'capability_configuration')?.value;
  const [capability, setting] = id.split('.') as [string, string];
  const settings = isPlain(map) ? map[capability] : undefined;
  return isPlain(settings) && Object.prototype.hasOwnProperty.call(settings, setting) ? settings[setting] : undefined;
}

/**
 * A rule that enforces one capability setting on one field of `subject`.
 *
 * `limit` turns the setting's value into a per-cell test (null: the value
 * constrains nothing). The configuration is read first, so a workspace that
 * does not set it never decodes the subject.
 */
function settingRule(id: string, setting: CapabilitySettingId, subject: string, field: string, limit: (value: unknown) => ((cell: CellValue) => boolean) | null): SnapshotRule {
  return {
    id,
    subject,
    reads: [CONFIGURATION, subject],
    *check(snapshot) {
      const value = settingValue(snapshot, setting);
      const broken = value === undefined ? null : limit(value);
      if (broken === null) return;
      const table = snapshot.table(subject);
      const family = familyByKey(subject);
      if (table === undefined || table.numRows === 0 || family === undefined) return;
      for (const w of rowWindows(family, table, snapshot.windowRows)) {
        const values = w.cols.col(field);
        for (let row = 0; row < values.length; row++) if (broken(values[row] ?? null)) yield { row: w.start + row, field };
      }
    },
  };
}

const utf8 = new TextEncoder();

/** True when `text` is more than `max` UTF-8 bytes (encoded only when its length leaves it in doubt). */
function overUtf8Bytes(text: string, max: number): boolean {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4).
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return utf8.encode(text).length > max;
}

/**
 * The rule enforcing each recognized capability setting (a setting the
 * contract registers without a rule here fails the build).
 */
export const SETTING_RULES: Readonly<Record<CapabilitySettingId, SnapshotRule>> = Object.freeze({
  'graph.max_property_bytes': settingRule('graph.node.max_property_bytes', 'graph.max_property_bytes', 'graph/node', 'properties', (max) =>
    typeof max === 'number' ? (cell) => typeof cell === 'string' && overUtf8Bytes(cell, max) : null,
  ),
  'knowledge.min_confidence_percent': settingRule(
    'knowledge.confidence_assessment.min_confidence',
    'knowledge.min_confidence_percent',
    'knowledge/confidence_assessment',
    'confidence',
    // percent / 100 is the double nearest the decimal, as a literal such as 0.29 is: the boundary is exact.
    (percent) => (typeof percent === 'number' ? (cell) => typeof cell === 'number' && cell < percent / 100 : null),
  ),
  'provenance.record_agents': settingRule('provenance.event.agent_recorded', 'provenance.record_agents', 'provenance/event', 'agent', (on) =>
    on === true ? (cell) => cell === null : null,
  ),
});

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
  // The recognized capability settings of the configuration, each enforced on the records it constrains.
  ...Object.values(SETTING_RULES),
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
  /** Rows per validation window (default `VALIDATION_WINDOW_ROWS`; tests use small windows). */
  readonly windowRows?: number;
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
  const { present, view } = snapshotColumns(snapshot, opts.windowRows);
  const changed = opts.changed;
  const selected = (key: string): boolean => changed === undefined || changed.has(key);
  const rules = SNAPSHOT_RULES.filter((rule) => rule.reads.some(selected));
  if (opts.domain !== false) {
    for (const family of RECORD_FAMILIES) {
      if (!present.has(family.key) || !selected(family.key)) continue;
      const table = view.table(family.key);
      if (table === undefined) continue;
      const first = participantIssueStream(family, table, view.windowRows).next();
      if (first.done !== true) throw toError(first.value);
      if (!rules.some((rule) => rule.subject === family.key || rule.reads.includes(family.key))) view.release(family.key);
    }
  }
  runSnapshotRules(rules, view);
}

/**
 * Runs cross-domain rules in order (`assertRule` each), releasing every
 * participant after the last rule that reads it; `passed` is called after
 * each rule that found nothing.
 */
export function runSnapshotRules(rules: readonly SnapshotRule[], view: SnapshotColumns, passed?: (rule: SnapshotRule) => void): void {
  const lastUse = new Map<string, number>();
  rules.forEach((rule, i) => {
    for (const key of [rule.subject, ...rule.reads]) lastUse.set(key, i);
  });
  rules.forEach((rule, i) => {
    assertRule(rule, view);
    passed?.(rule);
    for (const key of [rule.subject, ...rule.reads]) if (lastUse.get(key) === i) view.release(key);
  });
}

/**
 * The families of a snapshot and a cell view over them that decodes each
 * participant (and checks its schema) when a rule asks for it: cells are kept per
 * participant, tables are not (a large one is held only by the rule reading it).
 *
 * `GF_SCHEMA_MISMATCH` for a participant of an unregistered family (its key
 * reported in a safe form). Shared by every snapshot validation (publication
 * here, complete-snapshot validation in core/checkpoints).
 */
export function snapshotColumns(
  snapshot: ParticipantSnapshot,
  windowRows = VALIDATION_WINDOW_ROWS,
): { readonly present: ReadonlySet<string>; readonly view: SnapshotColumns } {
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
  const tables = new Map<string, ParticipantTable | undefined>();
  const released = new Set<string>();
  const keyIndexes = new Map<string, KeyIndex>();
  const tableOf = (key: string): ParticipantTable | undefined => {
    if (tables.has(key)) return tables.get(key);
    if (released.has(key)) throw new Error(`invariant violated: ${safeKey(key)} read after its last use`);
    const family = familyByKey(key);
    const table = family !== undefined && present.has(key) ? (snapshot.file?.(key) ?? snapshot.get(key)) : undefined;
    if (family !== undefined && table !== undefined) assertFamilySchema(family, table);
    tables.set(key, table);
    return table;
  };
  const view: SnapshotColumns = {
    ...(snapshot.generationUuid === undefined ? {} : { generationUuid: snapshot.generationUuid }),
    windowRows,
    table: tableOf,
    keys(key, field) {
      const id = `${key}\u0000${field}`;
      let index = keyIndexes.get(id);
      if (index === undefined) {
        const family = familyByKey(key);
        if (family === undefined) throw new Error(`invariant violated: keys of ${safeKey(key)}`);
        index = keyIndexOf(family, tableOf(key), field, windowRows);
        keyIndexes.set(id, index);
      }
      return index;
    },
    release(key) {
      for (const id of keyIndexes.keys()) if (id.startsWith(`${key}\u0000`)) keyIndexes.delete(id);
      if (!tables.has(key) && !cache.has(key)) return;
      tables.delete(key);
      cache.delete(key);
      released.add(key);
    },
    columns(key) {
      if (cache.has(key)) return cache.get(key);
      const family = familyByKey(key);
      const table = tableOf(key);
      const cols = family !== undefined && table !== undefined ? columnsOf(family, wholeTable(table)) : undefined;
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
