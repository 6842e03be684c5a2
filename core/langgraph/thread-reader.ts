import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { GfError } from '../errors';
import {
  THREAD_HEAD_SELECTOR,
  THREAD_PAGE_LIMITS,
  type ThreadChannelValue,
  type ThreadDiff,
  type ThreadHistoryRow,
  type ThreadInterrupt,
  type ThreadJson,
  type ThreadListRow,
  type ThreadPage,
  type ThreadPendingWrite,
  type ThreadState,
} from '../contract/threads';
import { diffUnrevivedChannels, toThreadJson, typeOfValue, type UnrevivedValue } from './thread-json';
import { INTERRUPT_CHANNEL, isPlainParsedObject, type RawCheckpoint, type ThreadReadSource } from './thread-source';
import { decodeDiffToken, decodeKeysetToken, encodeDiffToken, encodeKeysetToken } from './thread-tokens';

/** LangGraph-internal channels (`__start__`, `__pregel_tasks`, `branch:to:x`, …): not part of the graph's state. */
export function isInternalChannel(name: string): boolean {
  return name.startsWith('__') || /^(branch|start|join):/.test(name);
}

/** A source opened for reading, with the identity tokens are bound to (its kind and path, never a URL). */
export interface OpenThreadSource {
  readonly id: string;
  readonly reader: ThreadReadSource;
}

const rootConfig = (threadId: string, checkpointId?: string) => ({
  configurable: checkpointId === undefined ? { thread_id: threadId, checkpoint_ns: '' } : { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId },
});

function threadNotFound(): never {
  throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no thread with this id in the checkpoint database', { kind: 'thread' });
}

function checkpointNotFound(): never {
  throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint with this id in the thread', { kind: 'checkpoint' });
}

/** One checkpoint through the upstream saver (the head when `checkpointId` is omitted); typed not-found errors. */
export async function readTuple(reader: ThreadReadSource, threadId: string, checkpointId?: string): Promise<CheckpointTuple> {
  const tuple = await reader.saver.getTuple(rootConfig(threadId, checkpointId));
  if (tuple !== undefined) return tuple;
  if (checkpointId === undefined || (await reader.checkpointCount(threadId)) === 0) return threadNotFound();
  return checkpointNotFound();
}

/** One checkpoint's channel values before revival (the head when `checkpointId` is omitted); the not-found errors of `readTuple`. */
async function readRaw(reader: ThreadReadSource, threadId: string, checkpointId?: string): Promise<RawCheckpoint> {
  const raw = await reader.rawCheckpoint(threadId, checkpointId);
  if (raw !== undefined) return raw;
  if (checkpointId === undefined || (await reader.checkpointCount(threadId)) === 0) return threadNotFound();
  return checkpointNotFound();
}

/** The state channels (internal ones left out, as `stateValues` leaves them) of an unrevived checkpoint. */
function stateChannels(raw: RawCheckpoint): Map<string, UnrevivedValue> {
  return new Map([...raw.channels].filter(([channel]) => !isInternalChannel(channel)));
}

const idOf = (t: CheckpointTuple): string => String(t.config.configurable?.['checkpoint_id']);
const parentOf = (t: CheckpointTuple): string | null => {
  const p: unknown = t.parentConfig?.configurable?.['checkpoint_id'];
  return typeof p === 'string' ? p : null;
};

function versionGreater(a: unknown, b: unknown): boolean {
  if (b === undefined || b === null) return a !== undefined && a !== null;
  return (a as number | string) > (b as number | string);
}

/**
 * The nodes LangGraph runs next from a checkpoint.
 *
 * A node is triggered when one of its trigger channels (`branch:to:<node>`,
 * or `__start__` for the start node) holds a value and has a version newer
 * than the one the node last saw (`versions_seen`): LangGraph's own rule.
 */
export function nextNodes(t: CheckpointTuple): string[] {
  const { channel_versions: versions, versions_seen: seen, channel_values: values } = t.checkpoint;
  const next: string[] = [];
  for (const [channel, version] of Object.entries(versions)) {
    const node = channel === '__start__' ? '__start__' : channel.startsWith('branch:to:') ? channel.slice('branch:to:'.length) : null;
    if (node === null || !(channel in values)) continue;
    if (versionGreater(version, seen[node]?.[channel])) next.push(node);
  }
  return next;
}

/** Nodes whose `versions_seen` changed from the parent to this checkpoint: the nodes whose writes produced it. */
export function writingNodes(t: CheckpointTuple, parent: CheckpointTuple | undefined): string[] {
  const now = t.checkpoint.versions_seen;
  const was = parent?.checkpoint.versions_seen ?? {};
  return Object.keys(now)
    .filter((node) => JSON.stringify(now[node]) !== JSON.stringify(was[node]))
    .sort();
}

const metaOf = (t: CheckpointTuple): Record<string, unknown> => (t.metadata ?? {}) as Record<string, unknown>;

/** The interrupts among the values of `__interrupt__` writes (each write holds one interrupt or a list of them). */
function interruptsIn(values: readonly unknown[]): ThreadInterrupt[] {
  const out: ThreadInterrupt[] = [];
  for (const value of values) {
    for (const i of Array.isArray(value) ? value : [value]) {
      const id: unknown = (i as { id?: unknown } | null)?.id;
      out.push({ id: typeof id === 'string' ? id : null, value: toThreadJson((i as { value?: unknown } | null)?.value) });
    }
  }
  return out;
}

function interruptsOf(t: CheckpointTuple): ThreadInterrupt[] {
  return interruptsIn((t.pendingWrites ?? []).filter(([, channel]) => channel === INTERRUPT_CHANNEL).map(([, , value]) => value));
}

/** `threads.list`: a keyset page of threads, each with its newest checkpoint's facts. */
export async function listThreads(src: OpenThreadSource, prefix: string, limit: number = THREAD_PAGE_LIMITS.default, after?: string | null): Promise<ThreadPage<ThreadListRow>> {
  const binding = `threads.list\u0000${src.id}\u0000${prefix}\u0000${limit}`;
  const from = after === undefined || after === null ? null : decodeKeysetToken('threads.list', binding, after);
  const keys = await src.reader.heads(prefix, from, limit + 1);
  const page = keys.slice(0, limit);
  const rows: ThreadListRow[] = page.map((head) => ({
    thread_id: head.thread_id,
    checkpoint_count: head.checkpoint_count,
    latest_checkpoint_id: head.latest_checkpoint_id,
    latest_time: head.ts,
    latest_step: typeof head.metadata['step'] === 'number' ? head.metadata['step'] : null,
    latest_source: typeof head.metadata['source'] === 'string' ? head.metadata['source'] : null,
    interrupted: interruptsIn(head.interruptWrites).length > 0,
  }));
  const last = page[page.length - 1];
  const next = keys.length > limit && last !== undefined ? encodeKeysetToken(binding, last.thread_id) : null;
  return { rows, next_page_token: next };
}

function historyRow(t: CheckpointTuple, parent: CheckpointTuple | undefined): ThreadHistoryRow {
  const meta = metaOf(t);
  const restored: unknown = meta['restored_from'];
  return {
    checkpoint_id: idOf(t),
    parent_checkpoint_id: parentOf(t),
    time: t.checkpoint.ts,
    step: typeof meta['step'] === 'number' ? meta['step'] : null,
    source: typeof meta['source'] === 'string' ? meta['source'] : null,
    writes: writingNodes(t, parent),
    next: nextNodes(t),
    restored_from: typeof restored === 'string' ? restored : null,
    restore_reason: typeof restored === 'string' && typeof meta['reason'] === 'string' ? meta['reason'] : null,
    restore_actor: typeof restored === 'string' && typeof meta['actor'] === 'string' ? meta['actor'] : null,
  };
}

/** `threads.history`: a thread's checkpoints newest first, through upstream `list({ before, limit })`. */
export async function threadHistory(src: OpenThreadSource, threadId: string, limit: number = THREAD_PAGE_LIMITS.default, after?: string | null): Promise<ThreadPage<ThreadHistoryRow>> {
  const binding = `threads.history\u0000${src.id}\u0000${threadId}\u0000${limit}`;
  const before = after === undefined || after === null ? undefined : decodeKeysetToken('threads.history', binding, after);
  const tuples: CheckpointTuple[] = [];
  for await (const t of src.reader.saver.list(rootConfig(threadId), { limit: limit + 1, ...(before === undefined ? {} : { before: rootConfig(threadId, before) }) })) tuples.push(t);
  if (tuples.length === 0 && before === undefined) threadNotFound();
  const byId = new Map(tuples.map((t) => [idOf(t), t]));
  const page = tuples.slice(0, limit);
  const rows: ThreadHistoryRow[] = [];
  for (const t of page) {
    const p = parentOf(t);
    const parent = p === null ? undefined : (byId.get(p) ?? (await src.reader.saver.getTuple(rootConfig(threadId, p))));
    rows.push(historyRow(t, parent));
  }
  const last = page[page.length - 1];
  const next = tuples.length > limit && last !== undefined ? encodeKeysetToken(binding, idOf(last)) : null;
  return { rows, next_page_token: next };
}

/** Channel values of a checkpoint as JSON (state channels only), by channel. */
export function stateValues(t: CheckpointTuple): Map<string, ThreadJson> {
  const out = new Map<string, ThreadJson>();
  for (const [channel, value] of Object.entries(t.checkpoint.channel_values)) {
    if (!isInternalChannel(channel)) out.set(channel, toThreadJson(value));
  }
  return out;
}

/** `threads.state`: one checkpoint in full (the head when `checkpointId` is omitted). */
export async function threadState(src: OpenThreadSource, threadId: string, checkpointId?: string): Promise<ThreadState> {
  const t = await readTuple(src.reader, threadId, checkpointId);
  const head = checkpointId === undefined ? t : await readTuple(src.reader, threadId);
  const versions = t.checkpoint.channel_versions;
  const values: ThreadChannelValue[] = Object.entries(t.checkpoint.channel_values)
    .filter(([channel]) => !isInternalChannel(channel))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([channel, value]) => ({ channel, type: typeOfValue(value), value: toThreadJson(value), version: versions[channel] === undefined ? null : String(versions[channel]) }));
  const pending: ThreadPendingWrite[] = (t.pendingWrites ?? []).map(([task_id, channel, value]) => ({ task_id, channel, type: typeOfValue(value), value: toThreadJson(value) }));
  return {
    thread_id: threadId,
    checkpoint_id: idOf(t),
    parent_checkpoint_id: parentOf(t),
    time: t.checkpoint.ts,
    is_head: idOf(head) === idOf(t),
    values,
    next: nextNodes(t),
    metadata: toThreadJson(t.metadata ?? {}),
    pending_writes: pending,
    interrupts: interruptsOf(t),
    channel_versions: Object.fromEntries(Object.entries(versions).map(([k, v]) => [k, String(v)])),
  };
}

/** `threads.diff`: per-channel summary and JSON-pointer value changes from `from` to `to` (`HEAD` = newest), paged; `GF_CANCELLED` once `signal` aborts. */
export async function diffThread(src: OpenThreadSource, threadId: string, from: string, to: string, limit: number = THREAD_PAGE_LIMITS.default, after?: string | null, signal?: AbortSignal): Promise<ThreadDiff> {
  const check = (): void => {
    if (signal?.aborted === true) throw new GfError('GF_CANCELLED', 'the thread diff was cancelled', { operation: 'threads.diff' });
  };
  check();
  // Both checkpoints are read unrevived; only the values that differ go through the saver's serializer
  // (reviving two 10,000-item states in full costs far more than the diff itself).
  const a = await readRaw(src.reader, threadId, from === THREAD_HEAD_SELECTOR ? undefined : from);
  check();
  const b = await readRaw(src.reader, threadId, to === THREAD_HEAD_SELECTOR ? undefined : to);
  check();
  const binding = { source: src.id, threadId, from: a.checkpoint_id, to: b.checkpoint_id, limit };
  const offset = after === undefined || after === null ? 0 : decodeDiffToken(after, binding);
  const serde = src.reader.saver.serde;
  const revive = (parsed: unknown): Promise<unknown> => serde.loadsTyped('json', JSON.stringify(parsed)) as Promise<unknown>;
  const { channels, changes } = await diffUnrevivedChannels(stateChannels(a), stateChannels(b), revive, isPlainParsedObject, check);
  if (offset > changes.length) throw new GfError('GF_PAGE_INVALID', 'the page token is not valid for this request', { operation: 'threads.diff', problem: 'position' });
  const rows = changes.slice(offset, offset + limit);
  const end = offset + rows.length;
  return {
    thread_id: threadId,
    from_checkpoint_id: a.checkpoint_id,
    to_checkpoint_id: b.checkpoint_id,
    channels,
    total_changes: changes.length,
    rows,
    next_page_token: end < changes.length ? encodeDiffToken(binding, end) : null,
  };
}
