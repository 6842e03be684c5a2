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
  type ThreadValueProblem,
  type ThreadNamespaceRow,
  type ThreadNamespaces,
} from '../contract/threads';
import { diffUnrevivedChannels, toThreadJson, typeOfValue, type UnrevivedValue } from './thread-json';
import { PythonValue, unreadableParts } from './python-serde';
import { INTERRUPT_CHANNEL, isPlainParsedObject, type RawCheckpoint, type ThreadReadSource } from './thread-source';
import type { CursorKey } from '../paging/cursor';
import { decodeDiffToken, decodeKeysetToken, encodeDiffToken, encodeKeysetToken, type KeysetBinding } from './thread-tokens';

/** LangGraph-internal channels (`__start__`, `__pregel_tasks`, `branch:to:x`, …): not part of the graph's state. */
export function isInternalChannel(name: string): boolean {
  return name.startsWith('__') || /^(branch|start|join):/.test(name);
}

/** A source opened for reading, with the identity tokens are bound to (its kind and path, never a URL). */
export interface OpenThreadSource {
  readonly id: string;
  readonly reader: ThreadReadSource;
  /** The key of this source's page tokens, read when a token is. */
  readonly cursorKey: () => CursorKey;
}

const rootConfig = (threadId: string, checkpointId?: string, ns = '') => ({
  configurable: checkpointId === undefined ? { thread_id: threadId, checkpoint_ns: ns } : { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId },
});

function threadNotFound(): never {
  throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no thread with this id in the checkpoint database', { kind: 'thread' });
}

function checkpointNotFound(): never {
  throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint with this id in the thread', { kind: 'checkpoint' });
}

/** One checkpoint through the upstream saver (the head when `checkpointId` is omitted); typed not-found errors. */
export async function readTuple(reader: ThreadReadSource, threadId: string, checkpointId?: string, ns = ''): Promise<CheckpointTuple> {
  const tuple = await reader.saver.getTuple(rootConfig(threadId, checkpointId, ns));
  if (tuple !== undefined) return tuple;
  if (ns !== '') throw new GfError('GF_CHECKPOINT_NOT_FOUND', checkpointId === undefined ? 'no checkpoint in this namespace of the thread' : 'no checkpoint with this id in this namespace of the thread', { kind: checkpointId === undefined ? 'namespace' : 'checkpoint' });
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
  // Tasks pushed with `Send` wait in LangGraph's `__pregel_tasks` channel: each runs its node next (Python and JS alike).
  const sends: unknown = values[TASKS_CHANNEL];
  if (Array.isArray(sends)) for (const send of sends) {
    const node = sendNode(send);
    if (node !== null) next.push(node);
  }
  return next;
}

/** LangGraph's channel of tasks pushed with `Send` (upstream `TASKS`). */
const TASKS_CHANNEL = '__pregel_tasks';

/** The node a `Send` targets: LangGraph.js's `Send` object, or Python's `Send(node, arg)` as decoded. */
function sendNode(send: unknown): string | null {
  if (send instanceof PythonValue) {
    const args = send.pythonType === 'Send' ? (send.json as { args?: unknown }).args : undefined;
    return Array.isArray(args) && typeof args[0] === 'string' ? args[0] : null;
  }
  const node: unknown = (send as { node?: unknown } | null)?.node;
  return typeof node === 'string' ? node : null;
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
    for (const item of Array.isArray(value) ? value : [value]) {
      // Python's `Interrupt` is a keyword-built dataclass: its `value` and `id` are among its fields.
      if (item instanceof PythonValue && item.unreadable) {
        out.push({ id: null, value: item.json }); // an interrupt whose bytes do not decode: still waiting, its value marked (and listed in problems)
        continue;
      }
      const i: unknown = item instanceof PythonValue && item.fields !== null ? item.fields : item;
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
  const binding: KeysetBinding = { operation: 'threads.list', request: [src.id, prefix], limit };
  const from = after === undefined || after === null ? null : decodeKeysetToken(src.cursorKey(), binding, after);
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
  const next = keys.length > limit && last !== undefined ? encodeKeysetToken(src.cursorKey(), binding, last.thread_id) : null;
  return { rows, next_page_token: next };
}

function historyRow(t: CheckpointTuple, parent: CheckpointTuple | undefined, unreadable: string | null): ThreadHistoryRow {
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
    unreadable,
    restore_reason: typeof restored === 'string' && typeof meta['reason'] === 'string' ? meta['reason'] : null,
    restore_actor: typeof restored === 'string' && typeof meta['actor'] === 'string' ? meta['actor'] : null,
  };
}

/** `threads.history`: a thread's checkpoints newest first, through upstream `list({ before, limit })`. */
export async function threadHistory(src: OpenThreadSource, threadId: string, limit: number = THREAD_PAGE_LIMITS.default, after?: string | null, ns = ''): Promise<ThreadPage<ThreadHistoryRow>> {
  const binding: KeysetBinding = { operation: 'threads.history', request: [src.id, threadId, ns], limit };
  const before = after === undefined || after === null ? undefined : decodeKeysetToken(src.cursorKey(), binding, after);
  const tuples: CheckpointTuple[] = [];
  for await (const t of src.reader.saver.list(rootConfig(threadId, undefined, ns), { limit: limit + 1, ...(before === undefined ? {} : { before: rootConfig(threadId, before, ns) }) })) tuples.push(t);
  if (tuples.length === 0 && before === undefined) {
    if (ns !== '') throw new GfError('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint in this namespace of the thread', { kind: 'namespace' });
    threadNotFound();
  }
  const byId = new Map(tuples.map((t) => [idOf(t), t]));
  const page = tuples.slice(0, limit);
  const rows: ThreadHistoryRow[] = [];
  for (const t of page) {
    const p = parentOf(t);
    const parent = p === null ? undefined : (byId.get(p) ?? (await src.reader.saver.getTuple(rootConfig(threadId, p, ns))));
    rows.push(historyRow(t, parent, src.reader.unreadable?.(t) ?? null));
  }
  const last = page[page.length - 1];
  const next = tuples.length > limit && last !== undefined ? encodeKeysetToken(src.cursorKey(), binding, idOf(last)) : null;
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
export async function threadState(src: OpenThreadSource, threadId: string, checkpointId?: string, ns = ''): Promise<ThreadState> {
  const t = await readTuple(src.reader, threadId, checkpointId, ns);
  const head = checkpointId === undefined ? t : await readTuple(src.reader, threadId, undefined, ns);
  const versions = t.checkpoint.channel_versions;
  const version = (channel: string) => (versions[channel] === undefined ? null : String(versions[channel]));
  const values: ThreadChannelValue[] = Object.entries(t.checkpoint.channel_values)
    .filter(([channel]) => !isInternalChannel(channel))
    .map(([channel, value]): ThreadChannelValue => {
      if (value instanceof PythonValue && value.pythonType === '_DeltaSnapshot' && value.fields !== null) {
        const inner = value.fields['value'];
        return { channel, type: typeOfValue(inner), value: toThreadJson(inner), version: version(channel), delta: 'snapshot' };
      }
      return { channel, type: typeOfValue(value), value: toThreadJson(value), version: version(channel), delta: null };
    });
  for (const [channel, history] of await deltaHistories(src.reader, t)) {
    values.push({ channel, type: 'delta_channel', value: { python_type: 'delta_channel', seed: history.seed, writes: history.writes, walked: history.walked, complete: history.complete }, version: version(channel), delta: 'deltas' });
  }
  values.sort((a, b) => (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0));
  const pending: ThreadPendingWrite[] = (t.pendingWrites ?? []).map(([task_id, channel, value]) => ({ task_id, channel, type: typeOfValue(value), value: toThreadJson(value) }));
  const where = `thread "${threadId}", checkpoint ${idOf(t)}`;
  const problems: ThreadValueProblem[] = [];
  const note = (channel: string, value: unknown, what: string) => {
    for (const p of unreadableParts(value)) {
      problems.push({ code: 'GF_CHECKPOINT_UNREADABLE', channel, pointer: p.pointer, problem: p.problem, message: `${where}, ${what} "${channel}"${p.pointer === '' ? '' : ` at ${p.pointer}`}: ${p.detail}` });
    }
  };
  for (const [channel, value] of Object.entries(t.checkpoint.channel_values)) if (!isInternalChannel(channel)) note(channel, value, 'channel');
  for (const [, channel, value] of t.pendingWrites ?? []) note(channel, value, 'pending write to');
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
    problems,
  };
}

/** How far back the delta history of a channel is followed (upstream snapshots every 1,000 updates by default). */
const DELTA_MAX_ANCESTORS = 1_000;

/**
 * The delta channels a checkpoint stores no value for (named in its metadata's
 * `counters_since_delta_snapshot`, versioned, absent from `channel_values`),
 * each with its seed and writes as upstream's `get_delta_channel_history`
 * gathers them: along the parent chain, the pending writes to the channel,
 * until an ancestor stores a value (the seed; a `_DeltaSnapshot`'s value).
 */
async function deltaHistories(reader: ThreadReadSource, t: CheckpointTuple): Promise<Map<string, { seed: ThreadJson; writes: ThreadJson[]; walked: number; complete: boolean }>> {
  const counters: unknown = metaOf(t)['counters_since_delta_snapshot'];
  const out = new Map<string, { seed: ThreadJson; writes: ThreadJson[]; walked: number; complete: boolean }>();
  if (counters === null || typeof counters !== 'object' || Array.isArray(counters)) return out;
  const remaining = new Set(Object.keys(counters).filter((c) => !isInternalChannel(c) && !(c in t.checkpoint.channel_values) && c in t.checkpoint.channel_versions));
  if (remaining.size === 0) return out;
  const collected = new Map([...remaining].map((c) => [c, [] as unknown[]]));
  const seeds = new Map<string, unknown>();
  let cursor = t.parentConfig;
  let walked = 0;
  while (cursor !== undefined && remaining.size > 0 && walked < DELTA_MAX_ANCESTORS) {
    const tup = await reader.saver.getTuple(cursor);
    if (tup === undefined) break;
    walked += 1;
    for (const [, channel, value] of [...(tup.pendingWrites ?? [])].reverse()) if (remaining.has(channel)) collected.get(channel)?.push(value);
    for (const channel of [...remaining]) {
      if (channel in tup.checkpoint.channel_values) {
        seeds.set(channel, tup.checkpoint.channel_values[channel]);
        remaining.delete(channel);
      }
    }
    cursor = tup.parentConfig;
  }
  for (const [channel, writes] of collected) {
    const seed = seeds.get(channel);
    const seedValue = seed instanceof PythonValue && seed.pythonType === '_DeltaSnapshot' && seed.fields !== null ? seed.fields['value'] : seed;
    out.set(channel, { seed: seeds.has(channel) ? toThreadJson(seedValue) : null, writes: writes.reverse().map((w) => toThreadJson(w)), walked, complete: !remaining.has(channel) || cursor === undefined });
  }
  return out;
}

/** `threads.namespaces`: the thread's subgraph namespaces, each labelled by its node and task, with the parent checkpoint it ran under. */
export async function threadNamespaces(src: OpenThreadSource, threadId: string): Promise<ThreadNamespaces> {
  const found = await src.reader.namespaces(threadId);
  if (found.length === 0 && (await src.reader.checkpointCount(threadId)) === 0) threadNotFound();
  const rows: ThreadNamespaceRow[] = found.map((r) => {
    const cut = r.checkpoint_ns.lastIndexOf('|');
    const parentNs = cut < 0 ? '' : r.checkpoint_ns.slice(0, cut);
    const own = r.checkpoint_ns.slice(cut + 1);
    const colon = own.lastIndexOf(':');
    const parent: unknown = r.parents[parentNs];
    return {
      checkpoint_ns: r.checkpoint_ns,
      node: colon < 0 ? own : own.slice(0, colon),
      task_id: colon < 0 ? '' : own.slice(colon + 1),
      parent_ns: parentNs,
      checkpoint_count: r.n,
      latest_checkpoint_id: r.latest,
      parent_checkpoint_id: typeof parent === 'string' ? parent : null,
    };
  });
  return { thread_id: threadId, rows };
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
  const offset = after === undefined || after === null ? 0 : decodeDiffToken(src.cursorKey(), after, binding);
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
    next_page_token: end < changes.length ? encodeDiffToken(src.cursorKey(), binding, end) : null,
  };
}
