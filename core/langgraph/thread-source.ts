import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { GfError } from '../errors';

/** One thread as the distinct-thread query sees it. */
export interface ThreadKey {
  readonly thread_id: string;
  readonly checkpoint_count: number;
  readonly latest_checkpoint_id: string;
}

/**
 * A LangGraph checkpoint database opened for reading (issue 17).
 *
 * `saver` is upstream's own `SqliteSaver` / `PostgresSaver`: every
 * checkpoint is read and deserialized through it. The SQL here covers only
 * what the saver API lacks: the distinct thread list and counts.
 */
export interface ThreadReadSource {
  readonly kind: 'sqlite' | 'postgres';
  readonly saver: BaseCheckpointSaver;
  /** False when the database has no LangGraph tables (only the health record can be read then). */
  readonly hasTables: boolean;
  /** Threads of the root namespace ordered by id (binary order), after `after`, starting with `prefix`. */
  threads(prefix: string, after: string | null, limit: number): Promise<ThreadKey[]>;
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
