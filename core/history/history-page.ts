// The workspace's history as people read it: every publication of the lineage
// log (pruned generations included) with the checkpoints naming it, paged
// newest first, and the retention policy in force with what it keeps.
import { resolve } from 'node:path';
import type { Table } from 'apache-arrow';
import type { Checkpoints } from '../checkpoints/checkpoints';
import type { RegistryDoc } from '../checkpoints/registry-format';
import { DEFAULT_RETAIN_ANCESTORS, RETAIN_ANCESTORS_MAX } from '../contract/history';
import type { HistoryCheckpoint, HistoryEntry, HistoryPage, LineageKind, PrunableGeneration, RetentionPolicy } from '../contract/history';
import { PAGE_LIMITS, validateLimit } from '../contract/paging';
import { microsIso } from '../contract/time';
import { GfError } from '../errors';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import type { LineageRecord, Project } from '../project/index';

/** The filters of one history listing (a page token is bound to them). */
export interface HistoryFilter {
  readonly kind?: LineageKind;
  readonly name?: string;
  readonly generation_uuid?: string;
}

/** History tokens are bound to the workspace and the filters (valid with any page size). */
const scopeOf = (root: string, f: HistoryFilter): CursorScope => ({
  operation: 'history.list',
  binding: [resolve(root), f.kind ?? null, f.name ?? null, f.generation_uuid ?? null],
  limit: null,
  bounds: PAGE_LIMITS,
});

const refuse = (problem: string): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not one of this history listing', { operation: 'history.list', problem });

/** The keyset token of a history page: the last entry's sequence, signed and bound to the workspace and the filters. */
function encodeToken(key: CursorKey, root: string, beforeSeq: number, f: HistoryFilter): string {
  return encodeCursor(key, scopeOf(root, f), beforeSeq);
}

/** The sequence a token carries: `GF_PAGE_INVALID` when forged, edited, or issued for another workspace or filter. */
function decodeToken(key: CursorKey, root: string, token: string, f: HistoryFilter): number {
  const seq = decodeCursor(key, scopeOf(root, f), token, refuse);
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw refuse('position');
  return seq;
}

/** Registry facts history shows: active checkpoints per generation, and every known checkpoint name by UUID. */
function registryIndex(doc: RegistryDoc | null | undefined): { byGeneration: Map<string, HistoryCheckpoint[]>; names: Map<string, string> } {
  const byGeneration = new Map<string, HistoryCheckpoint[]>();
  const names = new Map<string, string>();
  for (const t of doc?.tombstones ?? []) names.set(t.checkpoint_uuid, t.name);
  for (const a of doc?.active ?? []) {
    names.set(a.checkpoint_uuid, a.name);
    const list = byGeneration.get(a.generation_uuid) ?? [];
    list.push({ checkpoint_uuid: a.checkpoint_uuid, name: a.name, description: a.description });
    byGeneration.set(a.generation_uuid, list);
  }
  return { byGeneration, names };
}

/** One history row from its lineage record and what is on disk now. */
function entryOf(r: LineageRecord, current: string | null, onDisk: ReadonlySet<string>, index: ReturnType<typeof registryIndex>): HistoryEntry {
  return {
    seq: r.seq,
    generation_uuid: r.generationUuid,
    parent_generation_uuid: r.parentGenerationUuid,
    manifest_sha256: r.manifestSha256,
    published_at: microsIso(BigInt(r.publishedAt)),
    actor: r.actor,
    kind: r.kind,
    restored_checkpoint_uuid: r.restoredCheckpointUuid,
    restored_checkpoint_name: r.restoredCheckpointUuid === null ? null : (index.names.get(r.restoredCheckpointUuid) ?? null),
    reason: r.reason,
    participants_changed: r.participantsChanged,
    status: r.generationUuid === current ? 'current' : onDisk.has(r.generationUuid) ? 'retained' : 'pruned',
    checkpoints: index.byGeneration.get(r.generationUuid) ?? [],
  };
}

function matches(e: HistoryEntry, f: HistoryFilter): boolean {
  if (f.kind !== undefined && e.kind !== f.kind) return false;
  if (f.generation_uuid !== undefined && e.generation_uuid !== f.generation_uuid) return false;
  if (f.name !== undefined) {
    const needle = f.name.normalize('NFC').toLowerCase();
    const names = [...e.checkpoints.map((c) => c.name), ...(e.restored_checkpoint_name === null ? [] : [e.restored_checkpoint_name])];
    if (!names.some((n) => n.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/**
 * One page of history, newest first by publication order (the log's `seq`).
 *
 * Every record of the log is a row, whatever retention removed: a generation
 * whose directory is gone is `pruned`. Sorted by `seq` only, which retention
 * cannot change.
 */
export function historyPage(checkpoints: Checkpoints, request: HistoryFilter & { readonly limit?: number; readonly after?: string | null }, key: () => CursorKey): HistoryPage {
  const project = checkpoints.project;
  const limit = validateLimit(request.limit);
  const filter: HistoryFilter = { kind: request.kind, name: request.name, generation_uuid: request.generation_uuid };
  const before = request.after === undefined || request.after === null ? Number.POSITIVE_INFINITY : decodeToken(key(), project.root, request.after, filter);
  const log = project.lineage();
  const current = project.current()?.generationUuid ?? null;
  const onDisk = new Set(project.listGenerations().filter((g) => g.status === 'complete').map((g) => g.generationUuid));
  const index = registryIndex(checkpoints.registryState().doc);
  const entries: HistoryEntry[] = [];
  let next: string | null = null;
  for (let i = log.records.length - 1; i >= 0; i--) {
    const r = log.records[i] as LineageRecord;
    if (r.seq >= before) continue;
    const e = entryOf(r, current, onDisk, index);
    if (!matches(e, filter)) continue;
    if (entries.length === limit) {
      next = encodeToken(key(), project.root, (entries.at(-1) as HistoryEntry).seq, filter);
      break;
    }
    entries.push(e);
  }
  return { entries, next_page_token: next, total_records: log.records.length };
}

/** The retention policy in force and what it keeps now. */
export function retentionPolicy(project: Project<Table>): RetentionPolicy {
  const roots = project.retentionRoots();
  const keep = new Set([...(roots.current === null ? [] : [roots.current]), ...roots.ancestors, ...roots.pinned]);
  return {
    retain_ancestors: project.retainAncestors,
    default_retain_ancestors: DEFAULT_RETAIN_ANCESTORS,
    max_retain_ancestors: RETAIN_ANCESTORS_MAX,
    source: project.retentionSource,
    current_generation_uuid: roots.current,
    ancestors: [...roots.ancestors],
    checkpointed: [...roots.pinned].sort(),
    leased: project.generationsHeldByReaders(keep),
  };
}

/** The unnamed generations one more publication (a revert) would make prunable, with their lineage records' fields. */
export function prunableGenerations(project: Project<Table>): PrunableGeneration[] {
  const uuids = project.prunableAfterPublication();
  if (uuids.length === 0) return [];
  const byGeneration = new Map(project.lineage().records.map((r) => [r.generationUuid, r]));
  return uuids.map((g) => {
    const r = byGeneration.get(g);
    return {
      generation_uuid: g,
      seq: r?.seq ?? null,
      published_at: r === undefined ? null : microsIso(BigInt(r.publishedAt)),
      kind: r?.kind ?? null,
      reason: r?.reason ?? null,
    };
  });
}

