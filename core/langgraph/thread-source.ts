import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { GfError } from '../errors';
import type { PruneReads } from './thread-prune';

export { INTERRUPT_CHANNEL } from './channels';

/** One thread as the distinct-thread query sees it. */
export interface ThreadKey {
  readonly thread_id: string;
  readonly checkpoint_count: number;
  readonly latest_checkpoint_id: string;
}

/**
 * One thread's newest checkpoint as the thread list shows it.
 *
 * Read for a whole page in one SQL pass; `metadata` and the interrupt
 * writes are deserialized through the saver's own serializer exactly as its
 * `getTuple` does. `ts` is the checkpoint document's `ts` member.
 */
export interface ThreadHead extends ThreadKey {
  readonly ts: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Deserialized values of the head's pending writes to LangGraph's `__interrupt__` channel. */
  readonly interruptWrites: readonly unknown[];
}

/**
 * A channel value as read for a diff: the parsed JSON text the saver's
 * serializer would revive (`parsed`), or, for a value stored in another
 * form, the value the serializer already revived (`revived`).
 */
export type RawChannelValue = { readonly parsed: unknown } | { readonly revived: unknown };

/** One checkpoint's channel values before revival, by channel (every stored channel, internal ones included). */
export interface RawCheckpoint {
  readonly checkpoint_id: string;
  readonly channels: ReadonlyMap<string, RawChannelValue>;
}

/** Whether a parsed JSON object revives key for key into a plain object: no `lc` record marker, no `__proto__` key. */
export function isPlainParsedObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.prototype.hasOwnProperty.call(v, 'lc') && !Object.prototype.hasOwnProperty.call(v, '__proto__');
}

/** The reads thread browsing makes of a saver: upstream's `getTuple` and `list`, and its serializer. */
export type ThreadSaver = Pick<BaseCheckpointSaver, 'getTuple' | 'list' | 'serde'>;

/** Who wrote a database: LangGraph.js (`json` values) or Python LangGraph (JsonPlusSerializer's `msgpack`). */
export type ThreadFormat = 'js' | 'python';

/**
 * A LangGraph checkpoint database opened for reading.
 *
 * For a database LangGraph.js wrote, `saver` is upstream's own `SqliteSaver` / `PostgresSaver`: every
 * checkpoint is read and deserialized through it. The SQL here covers only
 * what the saver API lacks: the distinct thread list with counts and each
 * thread's head for a whole page at once (one query, not one `getTuple` per
 * thread; the head's metadata and writes still go through the saver's `serde`).
 */
export interface ThreadReadSource {
  readonly kind: 'sqlite' | 'postgres';
  /** Who wrote the database (decided from its rows when it opens). */
  readonly format: ThreadFormat;
  /** Reads checkpoints: upstream's saver for LangGraph.js data; for Python data, a reader with the Python decoder. */
  readonly saver: ThreadSaver;
  /** False when the database has no LangGraph tables (only the health record can be read then). */
  readonly hasTables: boolean;
  /** Threads of the root namespace ordered by id (binary order), after `after`, starting with `prefix`, each with its head. */
  heads(prefix: string, after: string | null, limit: number): Promise<ThreadHead[]>;
  /**
   * One checkpoint's channel values before revival (the head when `checkpointId` is omitted; undefined when absent),
   * read as the saver's `getTuple` reads them, so a diff revives (through `saver.serde`) only what differs.
   */
  rawCheckpoint(threadId: string, checkpointId?: string): Promise<RawCheckpoint | undefined>;
  /** A thread's checkpoint namespaces other than the root: name, count, newest checkpoint, the parents map of its first checkpoint's metadata. */
  namespaces(threadId: string): Promise<{ readonly checkpoint_ns: string; readonly n: number; readonly latest: string; readonly parents: Readonly<Record<string, unknown>> }[]>;
  /** Checkpoints of one thread's root namespace (0 when the thread is unknown). */
  checkpointCount(threadId: string): Promise<number>;
  /** Why a checkpoint `saver.list` gave could not be read (it is given with empty channels), else null. Sources that never degrade leave it out. */
  unreadable?(t: CheckpointTuple): string | null;
  /** The reads of a prune's preview (and of its check before anything opens for writing). */
  readonly prune: PruneReads;
  /** Pool counters of the reading connection(s). */
  pool(): { readonly in_use: number; readonly idle: number };
  close(): Promise<void>;
}

/** The error of a database without LangGraph's tables. */
export function noLangGraphTables(kind: 'sqlite' | 'postgres'): GfError {
  return new GfError('GF_SCHEMA_MISMATCH', `the ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'} has no LangGraph checkpoint tables (checkpoints, writes)`, { reason: 'no_langgraph_tables' });
}

/** Names what was being read when a read failed: the thread and checkpoint of a saver call. */
function readLabel(config: { configurable?: Record<string, unknown> } | undefined): string {
  const c = config?.configurable ?? {};
  const thread = typeof c['thread_id'] === 'string' ? `thread "${c['thread_id']}"` : 'the threads';
  const ns = typeof c['checkpoint_ns'] === 'string' && c['checkpoint_ns'] !== '' ? ` (namespace "${c['checkpoint_ns']}")` : '';
  const id = typeof c['checkpoint_id'] === 'string' ? `, checkpoint ${c['checkpoint_id']}` : '';
  return `${thread}${ns}${id}`;
}

/**
 * A read source whose failures are all typed: an engine error passes as it is;
 * a failure of the database itself becomes what `database(e)` makes of it
 * (`GF_IO` for a damaged SQLite file, for instance), or, when it returns null,
 * a stored value that did not decode (upstream's serializer throwing on bad
 * JSON, a document of another layout) becomes `GF_CHECKPOINT_UNREADABLE`
 * naming the source, thread and checkpoint. Foreign data never reaches the
 * caller as an internal error.
 */
export function guardReads(source: ThreadReadSource, where: string, database: (e: unknown) => GfError | null): ThreadReadSource {
  const typed = (e: unknown, what: string): GfError => {
    if (e instanceof GfError) return e;
    const db = database(e);
    if (db !== null) return db;
    const name = e instanceof Error ? e.name : 'error';
    return new GfError('GF_CHECKPOINT_UNREADABLE', `${what} in ${where} could not be read: a stored value does not decode (${name})`, { reason: 'undecodable' });
  };
  const run = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      throw typed(e, what);
    }
  };
  const saver = source.saver;
  // The saver itself stays underneath (its own fields read through), with its two reads guarded.
  const guardedSaver = Object.create(saver) as ThreadSaver;
  Object.defineProperties(guardedSaver, {
    getTuple: { value: (config: Parameters<ThreadSaver['getTuple']>[0]) => run(readLabel(config as { configurable?: Record<string, unknown> }), () => saver.getTuple(config)) },
    list: {
      value: async function* (config: Parameters<ThreadSaver['list']>[0], options?: Parameters<ThreadSaver['list']>[1]) {
        try {
          for await (const t of saver.list(config, options)) yield t;
        } catch (e) {
          throw typed(e, readLabel(config as { configurable?: Record<string, unknown> }));
        }
      },
    },
  });

  return {
    ...source,
    kind: source.kind,
    format: source.format,
    hasTables: source.hasTables,
    saver: guardedSaver,
    heads: (prefix, after, limit) => run('the thread list', () => source.heads(prefix, after, limit)),
    rawCheckpoint: (threadId, checkpointId) => run(readLabel({ configurable: { thread_id: threadId, checkpoint_id: checkpointId } }), () => source.rawCheckpoint(threadId, checkpointId)),
    checkpointCount: (threadId) => run(readLabel({ configurable: { thread_id: threadId } }), () => source.checkpointCount(threadId)),
    namespaces: (threadId) => run(readLabel({ configurable: { thread_id: threadId } }), () => source.namespaces(threadId)),
    prune: {
      facts: (threadId) => run(threadId === null ? 'the threads' : readLabel({ configurable: { thread_id: threadId } }), () => source.prune.facts(threadId)),
      details: (keys) => run('the checkpoints to prune', () => source.prune.details(keys)),
      recorded: (key) => run('the prune record', () => source.prune.recorded(key)),
    },
    pool: () => source.pool(),
    close: () => source.close(),
  };
}
