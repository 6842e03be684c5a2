import type Database from 'better-sqlite3';
import type { Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointPendingWrite, CheckpointTuple, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { GfError } from '../errors';
import { loadsPythonTyped, PYTHON_SERIALIZER, PythonDecodeError, unreadableValue } from './python-serde';
import type { ThreadSaver } from './thread-source';

/** One `checkpoints` row as Python's SqliteSaver writes it. */
interface CheckpointRow {
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly type: string | null;
  readonly checkpoint: Uint8Array | string | null;
  readonly metadata: Uint8Array | string | null;
}

/** One `writes` row. */
interface WriteRow {
  readonly task_id: string;
  readonly channel: string;
  readonly type: string | null;
  readonly value: Uint8Array | string | null;
}

/** The members of a checkpoint document every LangGraph version writes. */
function isCheckpointDoc(v: unknown): v is Checkpoint {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const d = v as Record<string, unknown>;
  const isMap = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
  return typeof d['id'] === 'string' && isMap(d['channel_values']) && isMap(d['channel_versions']) && isMap(d['versions_seen']);
}

/** A stored value decoded; one that does not is an `unreadable` marker (the rest stays readable). */
function valueOrMarker(decodeIt: () => unknown): unknown {
  try {
    return decodeIt();
  } catch (e) {
    return e instanceof PythonDecodeError ? unreadableValue(e.problem, e.detail) : unreadableValue('undecodable', 'the value does not decode');
  }
}

/** A sentence naming a checkpoint: its thread, namespace (when not the root) and id. */
export function checkpointLabel(threadId: string, ns: string, checkpointId: string): string {
  return `checkpoint ${checkpointId} of thread "${threadId}"${ns === '' ? '' : ` (namespace "${ns}")`}`;
}

const text = (v: Uint8Array | string | null): string => (v === null ? '' : typeof v === 'string' ? v : new TextDecoder().decode(v));

/**
 * Reads a LangGraph SQLite file written by Python's `SqliteSaver`.
 *
 * Python stores each checkpoint as one typed blob (JsonPlusSerializer,
 * normally `msgpack`), its metadata as JSON text, and pending writes as typed
 * blobs; LangGraph.js's SqliteSaver reads writes through `CAST(value AS TEXT)`
 * and metadata through the checkpoint's serializer, which breaks on binary
 * msgpack. This reader selects the blobs as they are and decodes them with
 * the Python decoder.
 * It answers the reads thread browsing makes (`getTuple`, `list`) with
 * upstream's `CheckpointTuple` shape; it never writes.
 *
 * A checkpoint whose document does not decode throws `GF_CHECKPOINT_UNREADABLE`
 * from `getTuple`; in `list` it is given with empty channels and the problem
 * in `unreadable`, so the rest of the thread's history stays readable.
 */
export class PythonSqliteSaver implements ThreadSaver {
  readonly #byId: Database.Statement;
  readonly #head: Database.Statement;
  readonly #writes: Database.Statement;
  readonly #db: Database.Database;
  readonly #fileName: string;
  /** The list statements prepared so far, by SQL text (a handful of shapes). */
  readonly #lists = new Map<string, Database.Statement>();
  readonly #pageWrites: Database.Statement;
  /** The problem of each checkpoint listed with an unreadable document, by `ns\0id`. */
  readonly unreadable = new Map<string, string>();

  readonly serde: SerializerProtocol = PYTHON_SERIALIZER;

  constructor(db: Database.Database, fileName: string) {
    this.#db = db;
    this.#fileName = fileName;
    const cols = 'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata';
    this.#byId = db.prepare(`SELECT ${cols} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`);
    this.#head = db.prepare(`SELECT ${cols} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`);
    this.#writes = db.prepare('SELECT task_id, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx');
    this.#pageWrites = db.prepare('SELECT checkpoint_id, task_id, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id >= ? AND checkpoint_id <= ? ORDER BY checkpoint_id, task_id, idx');
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { thread_id: threadId, checkpoint_ns: ns = '', checkpoint_id: id } = (config.configurable ?? {}) as { thread_id?: string; checkpoint_ns?: string; checkpoint_id?: string };
    const row = this.#query(() => (id === undefined ? this.#head.get(threadId, ns) : this.#byId.get(threadId, ns, id)) as CheckpointRow | undefined);
    if (row === undefined) return undefined;
    const t = this.#tuple(row);
    if ('problem' in t) throw new GfError('GF_CHECKPOINT_UNREADABLE', t.problem, { reason: 'checkpoint_document' });
    return t;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { thread_id: threadId, checkpoint_ns: ns } = (config.configurable ?? {}) as { thread_id?: string; checkpoint_ns?: string };
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      where.push(clause);
      args.push(value);
    };
    if (threadId !== undefined) add('thread_id = ?', threadId);
    if (ns !== undefined) add('checkpoint_ns = ?', ns);
    const before: unknown = options?.before?.configurable?.['checkpoint_id'];
    if (typeof before === 'string') add('checkpoint_id < ?', before);
    for (const [k, v] of Object.entries(options?.filter ?? {})) {
      if (v === undefined) continue;
      where.push("json_valid(CAST(metadata AS TEXT)) AND json_extract(CAST(metadata AS TEXT), '$.' || ?) = json_extract(?, '$')");
      args.push(k, JSON.stringify(v));
    }
    const limit = options?.limit;
    const sql = `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY checkpoint_id DESC${limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.trunc(limit))}`}`;
    let statement = this.#lists.get(sql);
    if (statement === undefined) {
      statement = this.#query(() => this.#db.prepare(sql));
      this.#lists.set(sql, statement);
    }
    const run = statement;
    const rows = this.#query(() => run.all(...args) as CheckpointRow[]);
    // One thread's page: its pending writes in one statement, not one per checkpoint.
    const first = rows[rows.length - 1];
    const last = rows[0];
    const pageWrites = threadId !== undefined && ns !== undefined && first !== undefined && last !== undefined ? this.#writesBetween(threadId, ns, first.checkpoint_id, last.checkpoint_id) : undefined;
    for (const row of rows) {
      const t = this.#tuple(row, pageWrites?.get(row.checkpoint_id) ?? (pageWrites === undefined ? undefined : []));
      if ('problem' in t) {
        this.unreadable.set(`${row.checkpoint_ns}\u0000${row.checkpoint_id}`, t.problem);
        yield t.fallback;
      } else {
        yield t;
      }
    }
  }

  /** Runs a read; a damaged file is `GF_IO` (`SQLITE_CORRUPT`) naming the file, never an internal error. */
  #query<T>(run: () => T): T {
    try {
      return run();
    } catch (e) {
      const code = (e as { code?: unknown } | null)?.code;
      throw new GfError('GF_IO', `the SQLite file ${this.#fileName} could not be read (${typeof code === 'string' ? code : 'read failed'}): it may be damaged`, { reason: typeof code === 'string' ? code : 'read_failed' });
    }
  }

  /** The pending writes of one thread's checkpoints from `from` to `to` (ids), by checkpoint. */
  #writesBetween(threadId: string, ns: string, from: string, to: string): Map<string, WriteRow[]> {
    const out = new Map<string, WriteRow[]>();
    for (const w of this.#query(() => this.#pageWrites.all(threadId, ns, from, to) as (WriteRow & { checkpoint_id: string })[])) {
      const list = out.get(w.checkpoint_id) ?? [];
      list.push(w);
      out.set(w.checkpoint_id, list);
    }
    return out;
  }

  /** A row as upstream's tuple (`writesRead`: its pending writes, when the page already read them). */
  #tuple(row: CheckpointRow, writesRead?: readonly WriteRow[]): CheckpointTuple | { problem: string; fallback: CheckpointTuple } {
    const label = checkpointLabel(row.thread_id, row.checkpoint_ns, row.checkpoint_id);
    const config = { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.checkpoint_id } };
    const parentConfig = row.parent_checkpoint_id === null ? undefined : { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.parent_checkpoint_id } };
    let metadata: CheckpointMetadata;
    let metaProblem: string | null = null;
    try {
      const m: unknown = row.metadata === null ? {} : JSON.parse(text(row.metadata));
      if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new SyntaxError('not an object');
      metadata = m as CheckpointMetadata;
    } catch (_e) {
      metadata = {} as CheckpointMetadata;
      metaProblem = `the metadata of ${label} in ${this.#fileName} (table checkpoints) is not a JSON object`;
    }
    const writes = writesRead ?? this.#query(() => this.#writes.all(row.thread_id, row.checkpoint_ns, row.checkpoint_id) as WriteRow[]);
    const pendingWrites: CheckpointPendingWrite[] = writes.map((w) => [w.task_id, w.channel, this.#value(w.type, w.value)]);
    let doc: unknown;
    let problem: string | null = null;
    try {
      doc = loadsPythonTyped(row.type ?? 'json', row.checkpoint);
    } catch (e) {
      problem = `${label} in ${this.#fileName} (table checkpoints) could not be read: ${e instanceof PythonDecodeError ? e.detail : 'the document does not decode'}`;
    }
    if (problem === null && !isCheckpointDoc(doc)) problem = `${label} in ${this.#fileName} (table checkpoints) is not a LangGraph checkpoint document (no id, channel_values, channel_versions or versions_seen)`;
    if (problem === null && metaProblem !== null) problem = metaProblem;
    if (problem !== null) return { problem, fallback: this.#fallback(row, config, parentConfig, metadata, pendingWrites) };
    return { config, checkpoint: doc as Checkpoint, metadata, ...(parentConfig === undefined ? {} : { parentConfig }), pendingWrites };
  }

  #fallback(row: CheckpointRow, config: RunnableConfig, parentConfig: RunnableConfig | undefined, metadata: CheckpointMetadata, pendingWrites: CheckpointPendingWrite[]): CheckpointTuple {
    const checkpoint: Checkpoint = { v: 4, id: row.checkpoint_id, ts: '', channel_values: {}, channel_versions: {}, versions_seen: {} };
    return { config, checkpoint, metadata, ...(parentConfig === undefined ? {} : { parentConfig }), pendingWrites };
  }

  /** A pending write's value; one that does not decode is an `unreadable` marker (the checkpoint stays readable). */
  #value(type: string | null, value: Uint8Array | string | null): unknown {
    return valueOrMarker(() => loadsPythonTyped(type ?? 'json', value));
  }
}
