import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { GfError } from '../errors';

/** LangGraph's channel for interrupts among pending writes (upstream `INTERRUPT`). */
export const INTERRUPT_CHANNEL = '__interrupt__';

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
  /** Checkpoints of one thread's root namespace (0 when the thread is unknown). */
  checkpointCount(threadId: string): Promise<number>;
  /** Pool counters of the reading connection(s). */
  pool(): { readonly in_use: number; readonly idle: number };
  close(): Promise<void>;
}

/** The error of a database without LangGraph's tables. */
export function noLangGraphTables(kind: 'sqlite' | 'postgres'): GfError {
  return new GfError('GF_SCHEMA_MISMATCH', `the ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'} has no LangGraph checkpoint tables (checkpoints, writes)`, { reason: 'no_langgraph_tables' });
}
