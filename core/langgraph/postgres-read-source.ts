import type { Pool } from 'pg';
import { postgresEndpoint } from '../contract/postgres-url';
import { GfError, NETWORK_ERRNOS } from '../errors';
import { guardReads, INTERRUPT_CHANNEL, noLangGraphTables, type RawChannelValue, type ThreadFormat, type ThreadHead, type ThreadReadSource } from './thread-source';
import { loadPythonValue, pythonPostgresSaver } from './postgres-python-saver';
import { postgresPruneReads, type PruneReads } from './thread-prune';

/** `HOST:PORT` of a connection string: where it points, never who connects or with what secret. */
function endpointOf(url: string): string {
  const at = postgresEndpoint(url, { host: 'localhost', port: '5432' });
  return at === null ? 'the given address' : `${at.host}:${at.port}`;
}

function pgCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreachable';
}

/**
 * Opens a LangGraph Postgres checkpoint database for reading: every session is read-only.
 *
 * The pool's sessions start with `default_transaction_read_only = on`, so
 * even a bug cannot write; the first round trip proves it. Upstream
 * `setup()` (which migrates) is never called. The URL stays in memory:
 * errors carry the host, port and driver code only, never the URL's credentials or the driver's text.
 */
export async function openPostgresReadSource(url: string): Promise<ThreadReadSource> {
  const pg = (await import('pg')).default;
  const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
  const pool: Pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5_000, application_name: 'gf-threads-read', options: '-c default_transaction_read_only=on' });
  pool.on('error', () => undefined);
  let hasTables = false;
  let format: ThreadFormat = 'js';
  try {
    const ro = await pool.query<{ ro: string; t: string | null }>("SELECT current_setting('default_transaction_read_only') AS ro, to_regclass('checkpoints')::text AS t");
    if (ro.rows[0]?.ro !== 'on') throw new GfError('GF_IO', 'the LangGraph PostgreSQL session is not read-only', { reason: 'not_read_only' });
    hasTables = ro.rows[0]?.t !== null;
    if (hasTables) {
      // Python's PostgresSaver stores values as `msgpack` (and `null`, `bytes`); LangGraph.js's as `json`. The first stored value decides.
      const t = await pool.query<{ type: string | null }>("(SELECT type FROM checkpoint_blobs WHERE type <> 'empty' LIMIT 1) UNION ALL (SELECT type FROM checkpoint_writes LIMIT 1) LIMIT 1");
      const type = t.rows[0]?.type;
      format = type !== undefined && type !== null && type !== 'json' ? 'python' : 'js';
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    if (e instanceof GfError) throw e;
    const reason = pgCode(e);
    const what = reason === '28P01' || reason === '28000' ? 'refused the credentials' : reason === 'ECONNREFUSED' ? 'refused the connection' : 'did not answer';
    throw new GfError('GF_IO', `the LangGraph PostgreSQL database at ${endpointOf(url)} ${what}`, { reason });
  }
  return guardReads(readSource(pool, PostgresSaver, hasTables, format), 'the LangGraph PostgreSQL database', (e) => {
    // A server or connection failure (a SQLSTATE other than bad data, or a socket errno) stays what it is; bad stored data is typed by the guard.
    const code = pgCode(e);
    if (code === 'unreachable' || code.startsWith('22')) return null;
    if (NETWORK_ERRNOS.has(code) || code.startsWith('08') || code === '57P01') return new GfError('GF_STORE_UNREACHABLE', `the LangGraph PostgreSQL database at ${endpointOf(url)} did not answer`, { reason: code });
    return new GfError('GF_IO', `the LangGraph PostgreSQL database at ${endpointOf(url)} failed a read (${code})`, { reason: code });
  });
}

function readSource(pool: Pool, PostgresSaver: typeof import('@langchain/langgraph-checkpoint-postgres').PostgresSaver, hasTables: boolean, format: ThreadFormat): ThreadReadSource {
  const saver = format === 'python' ? pythonPostgresSaver(PostgresSaver, pool) : new PostgresSaver(pool);
  const python = format === 'python';
  const pruneReads = postgresPruneReads(pool);
  const tablesFirst = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    if (!hasTables) throw noLangGraphTables('postgres');
    return f(...a);
  };
  const prune: PruneReads = { facts: tablesFirst(pruneReads.facts), details: tablesFirst(pruneReads.details), recorded: tablesFirst(pruneReads.recorded) };
  return {
    prune,
    kind: 'postgres',
    format,
    saver,
    hasTables,
    async heads(prefix, after, limit) {
      if (!hasTables) throw noLangGraphTables('postgres');
      // One pass for a page: thread keys (keyset by thread id, binary order), each head's `ts` member and metadata
      // as upstream getTuple selects them, and its interrupt writes (getTuple's pending writes, `__interrupt__` only).
      const r = await pool.query<{ thread_id: string; n: string; latest: string; ts: unknown; metadata: unknown; interrupts: [Buffer, Buffer][] | null }>(
        `WITH page AS (
           SELECT thread_id, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints
            WHERE checkpoint_ns = '' AND thread_id COLLATE "C" > $1 AND left(thread_id, $2) = $3
            GROUP BY thread_id ORDER BY thread_id COLLATE "C" LIMIT $4)
         SELECT p.thread_id, p.n, p.latest, cp.checkpoint -> 'ts' AS ts, cp.metadata,
           (SELECT array_agg(array[cw.type::bytea, cw.blob] ORDER BY cw.task_id, cw.idx) FROM checkpoint_writes AS cw
             WHERE cw.thread_id = p.thread_id AND cw.checkpoint_ns = '' AND cw.checkpoint_id = p.latest AND cw.channel = '${INTERRUPT_CHANNEL}') AS interrupts
         FROM page AS p JOIN checkpoints AS cp ON cp.thread_id = p.thread_id AND cp.checkpoint_ns = '' AND cp.checkpoint_id = p.latest
         ORDER BY p.thread_id COLLATE "C"`,
        [after ?? '', prefix.length, prefix, limit],
      );
      const serde = saver.serde;
      const decoder = new TextDecoder();
      return Promise.all(
        r.rows.map(async (row): Promise<ThreadHead> => {
          // As PostgresSaver's _loadMetadata and _loadWrites: metadata round-trips through the serializer, writes are loaded by their type.
          if (python) {
            // As Python's PostgresSaver: metadata is the stored JSON; writes go through the Python decoder.
            const metadata = row.metadata !== null && typeof row.metadata === 'object' && !Array.isArray(row.metadata) ? (row.metadata as Record<string, unknown>) : {};
            const interruptWrites = (row.interrupts ?? []).map(([type, blob]) => loadPythonValue(decoder.decode(type), blob));
            return { thread_id: row.thread_id, checkpoint_count: Number(row.n), latest_checkpoint_id: row.latest, ts: typeof row.ts === 'string' ? row.ts : '', metadata, interruptWrites };
          }
          const [metaType, metaBytes] = await serde.dumpsTyped(row.metadata);
          const [metadata, interruptWrites] = await Promise.all([
            serde.loadsTyped(metaType, metaBytes) as Promise<Record<string, unknown> | null>,
            Promise.all((row.interrupts ?? []).map(([type, blob]) => serde.loadsTyped(decoder.decode(type), blob))),
          ]);
          return { thread_id: row.thread_id, checkpoint_count: Number(row.n), latest_checkpoint_id: row.latest, ts: typeof row.ts === 'string' ? row.ts : '', metadata: metadata ?? {}, interruptWrites };
        }),
      );
    },
    async rawCheckpoint(threadId, checkpointId) {
      if (!hasTables) throw noLangGraphTables('postgres');
      // PostgresSaver's SELECT_SQL channel blobs (one per channel at its version), loaded as its _loadBlobs loads them,
      // except that a JSON blob is parsed and left for the diff to revive where it differs.
      const r = await pool.query<{ checkpoint_id: string; inline: unknown; channel_values: [Buffer, Buffer, Buffer | null][] | null }>(
        `SELECT checkpoint_id, checkpoint -> 'channel_values' AS inline,
           (SELECT array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob])
              FROM jsonb_each_text(checkpoint -> 'channel_versions')
              INNER JOIN checkpoint_blobs AS bl
                ON bl.thread_id = cp.thread_id AND bl.checkpoint_ns = cp.checkpoint_ns
               AND bl.channel = jsonb_each_text.key AND bl.version = jsonb_each_text.value) AS channel_values
         FROM checkpoints AS cp WHERE thread_id = $1 AND checkpoint_ns = ''
         ${checkpointId === undefined ? 'ORDER BY checkpoint_id DESC LIMIT 1' : 'AND checkpoint_id = $2'}`,
        checkpointId === undefined ? [threadId] : [threadId, checkpointId],
      );
      const row = r.rows[0];
      if (row === undefined) return undefined;
      const decoder = new TextDecoder();
      const channels = new Map<string, RawChannelValue>();
      if (python) {
        // Python keeps primitive values inline in the document; blobs win where both exist (as its _load_checkpoint merges them).
        if (row.inline !== null && typeof row.inline === 'object' && !Array.isArray(row.inline)) for (const [k, v] of Object.entries(row.inline)) channels.set(k, { revived: v });
        for (const [k, t, v] of row.channel_values ?? []) {
          const type = decoder.decode(t);
          if (type !== 'empty') channels.set(decoder.decode(k), { revived: loadPythonValue(type, v) });
        }
        return { checkpoint_id: row.checkpoint_id, channels };
      }
      for (const [k, t, v] of row.channel_values ?? []) {
        const type = decoder.decode(t);
        if (type === 'empty') continue;
        let value: RawChannelValue | undefined;
        if (type === 'json' && v !== null) {
          try {
            value = { parsed: JSON.parse(decoder.decode(v)) as unknown };
          } catch (_e) {
            value = undefined;
          }
        }
        channels.set(decoder.decode(k), value ?? { revived: await saver.serde.loadsTyped(type, v ?? new Uint8Array()) });
      }
      return { checkpoint_id: row.checkpoint_id, channels };
    },
    async checkpointCount(threadId) {
      if (!hasTables) throw noLangGraphTables('postgres');
      const r = await pool.query<{ n: string }>("SELECT count(*) AS n FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''", [threadId]);
      return Number(r.rows[0]?.n ?? 0);
    },
    async namespaces(threadId) {
      if (!hasTables) throw noLangGraphTables('postgres');
      const r = await pool.query<{ checkpoint_ns: string; n: string; latest: string; parents: unknown }>(
        `SELECT c.checkpoint_ns, c.n, c.latest,
           (SELECT f.metadata -> 'parents' FROM checkpoints AS f WHERE f.thread_id = $1 AND f.checkpoint_ns = c.checkpoint_ns ORDER BY f.checkpoint_id LIMIT 1) AS parents
         FROM (SELECT checkpoint_ns, count(*) AS n, max(checkpoint_id) AS latest FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '' GROUP BY checkpoint_ns) AS c
         ORDER BY c.checkpoint_ns COLLATE "C"`,
        [threadId],
      );
      return r.rows.map((row) => ({ checkpoint_ns: row.checkpoint_ns, n: Number(row.n), latest: row.latest, parents: row.parents !== null && typeof row.parents === 'object' && !Array.isArray(row.parents) ? (row.parents as Record<string, unknown>) : {} }));
    },
    pool: () => ({ in_use: Math.max(0, pool.totalCount - pool.idleCount), idle: pool.idleCount }),
    async close() {
      await pool.end();
    },
  };
}
