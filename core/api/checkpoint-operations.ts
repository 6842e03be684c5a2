// checkpoints.* / view.* / diff operations over core/checkpoints, core/views
// and core/diff.
import type { Checkpoints } from '../checkpoints/checkpoints';
import { checkpointTable, receiptTable, tombstoneTable } from '../checkpoints/arrow-results';
import { deletedCheckpointPage } from '../checkpoints/tombstones';
import { userCursorKey } from '../paging/cursor-key';
import { diffCheckpoints, diffStatCheckpoints, projectShell, recordChange } from '../diff/index';
import { GfError } from '../errors';
import { familyByKey, type CellValue } from '../participants/index';
import type { CheckpointView } from '../views/checkpoint-view';
import { arrowResult, arrowResultFromBytes } from './arrow-result';
import type { Table } from 'apache-arrow';
import type { ParticipantEntry, PreviewChange, RecordJson } from '../contract/operations';
import type { SummaryChangeKind, SummaryDiffColumn } from '../contract/diff';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import { manifestEntryJson } from '../project/index';
import type { SessionTable } from './sessions';
import { prunableGenerations } from '../history/history-page';

/** Running diffs by operation id, and ids cancelled before their diff started. */
export class Cancellations {
  readonly #running = new Map<string, AbortController>();
  readonly #early = new Set<string>();

  /** A signal for a diff call; already aborted when `cancel` came first. */
  begin(operationId: string | undefined): { readonly signal: AbortSignal | undefined; readonly end: () => void } {
    if (operationId === undefined) return { signal: undefined, end: () => undefined };
    const c = new AbortController();
    if (this.#early.delete(operationId)) c.abort();
    this.#running.set(operationId, c);
    return { signal: c.signal, end: () => this.#running.delete(operationId) };
  }

  /** Cancels a running diff (true), or marks the id so its diff is cancelled when it starts (false). */
  cancel(operationId: string): boolean {
    const c = this.#running.get(operationId);
    if (c !== undefined) {
      c.abort();
      return true;
    }
    if (this.#early.size >= 1024) this.#early.delete(this.#early.values().next().value as string);
    this.#early.add(operationId);
    return false;
  }
}

/** Converts contract identity values to the family's cell kinds (timestamps as bigint microseconds). */
function identityCells(familyKey: string, identity: Readonly<Record<string, string | number | boolean | null>>): Record<string, CellValue> {
  const family = familyByKey(familyKey);
  if (family === undefined) throw new GfError('GF_VALIDATION', 'not a registered record family', { field: 'record_family_id' });
  const out: Record<string, CellValue> = {};
  for (const [k, v] of Object.entries(identity)) {
    const kind = family.field(k)?.kind;
    if (kind === 'timestamp_us' && v !== null) {
      const text = String(v);
      if (!/^-?\d{1,19}$/.test(text)) throw new GfError('GF_VALIDATION', 'timestamp identity values are integer microseconds', { field: 'identity' });
      out[k] = BigInt(text);
    } else if ((kind === 'int32' || kind === 'uint32') && typeof v === 'string') {
      // Text surfaces (the CLI's arguments, the lookup form) send integers as text.
      if (!/^-?\d{1,10}$/.test(v)) throw new GfError('GF_VALIDATION', 'integer identity values are decimal integers', { field: 'identity' });
      out[k] = Number(v);
    } else if (kind === 'bool' && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}

/** A record's cells as JSON (bigint as decimal text; everything else is already JSON). */
function recordJson(values: Readonly<Record<string, CellValue>> | null): RecordJson | null {
  if (values === null) return null;
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(values)) out[k] = typeof v === 'bigint' ? v.toString() : v;
  return out;
}

const count = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The summary rows of a preview's diff table (`checkpoint_summary_diff@1`), read by the contract's column names. */
function previewChanges(table: Table): PreviewChange[] {
  const col = (name: SummaryDiffColumn) => table.getChild(name);
  const [scope, capability, family, kind, fromRows, toRows] = (['scope', 'capability_id', 'record_family_id', 'change_kind', 'from_row_count', 'to_row_count'] as const).map(col);
  return Array.from({ length: table.numRows }, (_, i) => ({
    scope: String(scope?.get(i)),
    capability_id: String(capability?.get(i)),
    record_family_id: String(family?.get(i)),
    change_kind: kind?.get(i) as SummaryChangeKind,
    from_row_count: count(fromRows?.get(i)),
    to_row_count: count(toRows?.get(i)),
  }));
}

/** A view's participants, each with its scope from the closed registry (null for a family the registry does not know). */
function participantEntries(view: CheckpointView): ParticipantEntry[] {
  return view.participants.map((p) => {
    const family = familyByKey(`${p.capabilityId}/${p.recordFamilyId}`);
    return { ...manifestEntryJson(p), scope: family?.scope ?? null, identity_fields: family === undefined ? [] : [...family.identityFields] };
  });
}

/** checkpoints.*, view.*, checkpoints.diff and operation.cancel implementations. */
export function checkpointOperations(
  projects: SessionTable<ProjectSession>,
  views: SessionTable<CheckpointView>,
  cancellations: Cancellations,
) {
  const checkpoints = (handle: string, writerTimeoutMs?: number): Checkpoints => projects.get(handle).checkpoints(writerTimeoutMs);
  return {
    'checkpoints.list': async ({ project, limit, after, deleted }) => {
      if (deleted === true) {
        const gone = deletedCheckpointPage(checkpoints(project).registryState().doc, limit, after ?? undefined, () => userCursorKey());
        return arrowResult(tombstoneTable(gone.rows), gone.next);
      }
      const page = checkpoints(project).listCheckpoints({ limit, after: after ?? undefined });
      return arrowResult(checkpointTable(page.rows), page.next);
    },
    'checkpoints.show': async ({ project, name }) => arrowResult(checkpointTable([checkpoints(project).showCheckpoint(name)]), null),
    'checkpoints.create': async ({ project, name, description, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await checkpoints(project, timeout_ms).checkpoint({ name, description: description ?? undefined, idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? undefined });
      return arrowResult(receiptTable(receipt), null);
    },
    'checkpoints.delete': async ({ project, name, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await checkpoints(project, timeout_ms).deleteCheckpoint({ name, idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? undefined });
      return arrowResult(receiptTable(receipt), null);
    },
    'checkpoints.diff': async ({ project, from, to, scope, detail, limit, after, record_family_id, capability_id, operation_id, display, change_kinds, changed_field, search, position, changed_values }) => {
      const cps = checkpoints(project);
      const run = cancellations.begin(operation_id);
      try {
        // Cooperative: the diff yields to the event loop at each cancellation point, so a cancel lands while it runs.
        const page = await diffCheckpoints({
          from, to, scope, detail, limit, after, record_family_id, capability_id, signal: run.signal,
          display, change_kinds, changed_field, search, position, changed_values,
        }, projectShell(cps));
        return arrowResult(page.table, page.nextPageToken);
      } finally {
        run.end();
      }
    },
    'checkpoints.diff_stat': async ({ project, from, to, scope, record_family_id, capability_id, operation_id }) => {
      const run = cancellations.begin(operation_id);
      try {
        return await diffStatCheckpoints({ from, to, scope, record_family_id, capability_id, signal: run.signal }, projectShell(checkpoints(project)));
      } finally {
        run.end();
      }
    },
    'revert.preview': async ({ project, name }) => {
      const session = projects.get(project);
      const p = session.project;
      const preview = await session.revertEngine().previewRevert(name, { scope: 'all', detail: 'summary', limit: 10_000 });
      const rows = previewChanges(preview.diff.table);
      const changes = { added: 0, removed: 0, modified: 0, unchanged: 0 };
      for (const r of rows) changes[r.change_kind] += 1;
      return {
        checkpoint_uuid: preview.checkpoint_uuid,
        source_generation_uuid: preview.source_generation_uuid,
        source_manifest_sha256: preview.source_manifest_sha256,
        current_generation_uuid: preview.current_generation_uuid,
        participant_changes: changes,
        changes: rows,
        same_content: preview.same_content,
        retain_ancestors: p.retainAncestors,
        prunable: prunableGenerations(p),
      };
    },
    'checkpoints.revert': async ({ project, name, reason, idempotency_key, actor_uuid, timeout_ms, expected_current_generation_uuid }) => {
      const receipt = await projects.get(project).revertEngine(timeout_ms === undefined ? {} : { writerTimeoutMs: timeout_ms }).revertToCheckpoint(
        { name, reason, idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? undefined },
        expected_current_generation_uuid === undefined ? {} : { expectedCurrentGenerationUuid: expected_current_generation_uuid },
      );
      return arrowResult(receiptTable(receipt), null);
    },
    'operation.cancel': async ({ operation_id }) => ({ cancelled: cancellations.cancel(operation_id) }),
    'checkpoints.record_change': async ({ project, from, to, record_family_id, identity, record_identity_fingerprint, record_uuid }) => {
      const r = recordChange({ from, to, record_family_id, identity, record_identity_fingerprint, record_uuid }, projectShell(checkpoints(project)));
      const family = familyByKey(`${r.capability_id}/${r.record_family_id}`);
      const timestamps = Object.keys(r.from ?? r.to ?? {}).filter((k) => family?.field(k)?.kind === 'timestamp_us');
      return { ...r, from: recordJson(r.from), to: recordJson(r.to), changed_fields: [...r.changed_fields], timestamp_fields: timestamps };
    },
    'view.open': async ({ project, name }) => {
      const session = projects.get(project);
      const view = checkpoints(project).openCheckpoint(name);
      const handle = views.add({ value: view, close: () => view.release() });
      session.closers.add(() => views.close(handle).then(() => undefined));
      return { view: handle, checkpoint_uuid: view.checkpointUuid, generation_uuid: view.generationUuid, manifest_sha256: view.manifestSha256 };
    },
    'view.close': async ({ view }) => ({ closed: await views.close(view) }),
    'view.participants': async ({ view }) => ({ participants: participantEntries(views.get(view)) }),
    'view.records': async ({ view, capability_id, record_family_id, limit, after }) => {
      const page = views.get(view).readRecords(`${capability_id}/${record_family_id}`, { limit, after: after ?? undefined });
      return arrowResultFromBytes(page.bytes, page.next);
    },
    'view.record': async ({ view, capability_id, record_family_id, identity }) => {
      const key = `${capability_id}/${record_family_id}`;
      const page = views.get(view).readRecord(key, identityCells(key, identity));
      return arrowResultFromBytes(page.bytes, null);
    },
  } satisfies PartialImplementations;
}
