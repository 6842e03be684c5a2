// One record of a family's record diff: the request for a page of it, every
// field before and after as shown (timestamps ISO 8601), the JSON a person
// copies, and the expanded row that loads the record's two versions.
import type { OperationInput, RecordChangeEntry, RecordJson, Row } from '../../core/contract/operations';
import { diffScopeOfParticipant } from '../../core/contract/diff';
import { microsTextIso } from '../../core/contract/time';
import { ErrorBox } from '../components/error-box';
import { CopyButton } from '../components/copy-button';
import { invoke } from '../invoke';
import { useQuery } from '../hooks';

type SummaryRow = Row<'checkpoints.diff', 'checkpoint_summary_diff@1'>;
/** A record-diff row with display values, row number and total (`checkpoint_record_diff_display@1`). */
export type RecordRow = Row<'checkpoints.diff', 'checkpoint_record_diff_display@1'>;

export interface FamilyTarget {
  readonly project: string;
  readonly from: string;
  readonly to: string;
  readonly family: Pick<SummaryRow, 'scope' | 'capability_id' | 'record_family_id'>;
}

/** One page of a family's record diff, as the contract takes it (the scope derived from the family's declared scope). */
export function recordDiffRequest(t: FamilyTarget, page: { readonly limit: number; readonly after: string | null; readonly operation_id: string }): OperationInput<'checkpoints.diff'> {
  return {
    project: t.project,
    from: t.from,
    to: t.to,
    scope: diffScopeOfParticipant(t.family.scope ?? ''),
    detail: 'records',
    limit: page.limit,
    after: page.after,
    record_family_id: t.family.record_family_id ?? '',
    capability_id: t.family.capability_id ?? '',
    operation_id: page.operation_id,
  };
}

/** The id a person copies for a record: its record UUID, or (families without one) its identity fingerprint. */
export const recordId = (r: RecordRow): string => r.record_uuid ?? r.record_identity_fingerprint ?? '';

/** UTC microseconds (decimal text) as ISO 8601 with six fraction digits (the contract's one formatter). */
const microsIso = (text: string): string => microsTextIso(text) ?? text;

/** A JSON record value as shown (timestamps as ISO 8601). */
const shownValue = (v: string | number | boolean | null | undefined, timestamp: boolean): string =>
  v === null || v === undefined ? '—' : timestamp ? microsIso(String(v)) : String(v);

/** One field of a record change as shown: its value before and after, and whether it changed. */
export interface FieldLine {
  readonly field: string;
  readonly before: string;
  readonly after: string;
  readonly changed: boolean;
}

/**
 * Every field of a record change in schema order (the fields of either
 * version), with display values and the engine's changed flag: a modified
 * record marks exactly `changed_fields`; an added or removed record marks none
 * (it has one side only).
 */
export function fieldLines(entry: Pick<RecordChangeEntry, 'change_kind' | 'from' | 'to' | 'changed_fields' | 'timestamp_fields'>): readonly FieldLine[] {
  const names: string[] = [];
  for (const side of [entry.from, entry.to]) for (const f of Object.keys(side ?? {})) if (!names.includes(f)) names.push(f);
  const changed = new Set(entry.change_kind === 'modified' ? entry.changed_fields : []);
  return names.map((f) => {
    const ts = entry.timestamp_fields.includes(f);
    return { field: f, before: shownValue(entry.from?.[f], ts), after: shownValue(entry.to?.[f], ts), changed: changed.has(f) };
  });
}

/** A record as shown (timestamps ISO 8601), for "Copy row as JSON". */
function shownRecord(rec: RecordJson | null, timestamps: readonly string[]): Record<string, string | number | boolean | null> | null {
  if (rec === null) return null;
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(rec)) out[k] = v !== null && timestamps.includes(k) ? microsIso(String(v)) : v;
  return out;
}

/** The JSON a "Copy row as JSON" button copies: the change, its ids, both versions and the changed fields. */
export function rowJson(row: RecordRow, entry: RecordChangeEntry | null): string {
  return JSON.stringify(
    {
      change_kind: row.change_kind,
      record_family_id: row.record_family_id,
      record_uuid: row.record_uuid,
      record_identity_fingerprint: row.record_identity_fingerprint,
      ...(entry === null
        ? { from_record_fingerprint: row.from_record_fingerprint, to_record_fingerprint: row.to_record_fingerprint }
        : { changed_fields: entry.changed_fields, from: shownRecord(entry.from, entry.timestamp_fields), to: shownRecord(entry.to, entry.timestamp_fields) }),
    },
    null,
    2,
  );
}

/**
 * An expanded record-diff row: every field before and after, changed cells
 * highlighted (and marked for screen readers), with copy buttons. Loads the
 * record's two versions once when expanded.
 */
export function RecordExpansion({ target, row }: { target: FamilyTarget; row: RecordRow }) {
  const fingerprint = row.record_identity_fingerprint;
  const uuid = row.record_uuid;
  const familyId = target.family.record_family_id ?? '';
  const query = useQuery(fingerprint === null || fingerprint.length !== 64 ? null : `${target.from}|${target.to}|${familyId}|${fingerprint}`, () =>
    invoke('checkpoints.record_change', {
      project: target.project,
      from: target.from,
      to: target.to,
      record_family_id: familyId,
      record_identity_fingerprint: fingerprint ?? '',
      ...(uuid === null ? {} : { record_uuid: uuid }),
    }),
  );
  const entry = query.data;
  const error = query.error;
  const lines = entry === null ? [] : fieldLines(entry);
  const kind = row.change_kind ?? '';
  const beforeClass = (l: FieldLine) => (l.changed ? 'mono cell-changed' : kind === 'removed' ? 'mono cell-removed' : 'mono');
  const afterClass = (l: FieldLine) => (l.changed ? 'mono cell-changed' : kind === 'added' ? 'mono cell-added' : 'mono');
  return (
    <div className="record-expansion stack" data-testid="record-expansion">
      {error !== null && <ErrorBox error={error} testId="record-expansion-error" />}
      {fingerprint === null && <p className="muted small">This row carries no identity fingerprint, so its values cannot be looked up.</p>}
      {entry === null && error === null && fingerprint !== null && <p className="muted small" role="status">Loading the record's fields…</p>}
      {entry !== null && (
        <table className="fields-table" data-testid="changed-fields">
          <caption>
            {kind} record, every field ({target.from} → {target.to}){kind === 'modified' ? `: ${entry.changed_fields.length} changed, highlighted` : ''}
          </caption>
          <thead>
            <tr><th scope="col">field</th><th scope="col">before</th><th scope="col">after</th></tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.field} data-field={l.field} data-changed={l.changed ? 'true' : 'false'}>
                <th scope="row" className="mono">{l.field}{l.changed && <span className="sr-only"> (changed)</span>}</th>
                <td className={beforeClass(l)}>{l.before}</td>
                <td className={afterClass(l)}>{l.after}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <CopyButton label={row.record_uuid === null ? 'Copy identity fingerprint' : 'Copy record id'} text={recordId(row)} testId="copy-id" />
        <CopyButton label="Copy row as JSON" text={rowJson(row, entry)} testId="copy-json" />
      </div>
    </div>
  );
}
