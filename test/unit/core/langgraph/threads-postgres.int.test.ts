// Issue 17 on PostgreSQL: faithfulness to LangGraph, a read-only session, and an unreachable server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresCheckpointerAdapter } from '../../../../core/langgraph';
import { createFacade } from '../../../../core/api/facade';
import { openPostgresReadSource } from '../../../../core/langgraph/postgres-read-source';
import { usePostgres } from '../../../support/postgres';
import { caller, codeOf, threadsFaithfulness, threadsDiffAgreement, threadsListAgreement, type ThreadsBackend } from './threads-support';

const server = usePostgres({ beforeAll, afterAll });

const withDatabase = (url: string, db: string): string => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: withDatabase(server().url, 'postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function postgresBackend(db = 'threads_main'): ThreadsBackend {
  const pools: pg.Pool[] = [];
  const url = () => withDatabase(server().url, db);
  const copyUrl = () => withDatabase(server().url, 'threads_copy');
  const open = async (u: string) => {
    const pool = new pg.Pool({ connectionString: u });
    pool.on('error', () => undefined);
    pools.push(pool);
    return new PostgresCheckpointerAdapter({ pool }).saver();
  };
  return {
    source: { kind: 'postgres' },
    get postgresUrl() {
      return url();
    },
    mainSaver: async () => {
      if (pools.length === 0) await admin((c) => c.query(`CREATE DATABASE ${db}`)).catch(() => undefined);
      return open(url());
    },
    closeMain: async () => {
      await Promise.all(pools.splice(0).map((p) => p.end().catch(() => undefined)));
    },
    copy: async () => {
      await admin((c) => c.query('CREATE DATABASE threads_copy TEMPLATE threads_main'));
    },
    copySaver: () => open(copyUrl()),
    close: async () => undefined,
  };
}

const backend = postgresBackend();
describe('threads on PostgreSQL: faithful to LangGraph', () => {
  threadsFaithfulness(() => backend);
});

const listBackend = postgresBackend('threads_list');
describe('threads on PostgreSQL: the batched list and the diff', () => {
  threadsListAgreement(() => listBackend);
  threadsDiffAgreement(() => listBackend);
});

describe('threads on PostgreSQL: read-only and unreachable', () => {
  it('the reading session refuses writes (default_transaction_read_only)', async () => {
    const src = await openPostgresReadSource(withDatabase(server().url, 'threads_main'));
    try {
      const saver = src.saver as unknown as { pool: pg.Pool };
      const err = await saver.pool.query('CREATE TABLE gf_should_not_exist (x int)').then(() => null, (e: { code?: string }) => e.code);
      expect(err).toBe('25006'); // read_only_sql_transaction
    } finally {
      await src.close();
    }
  });

  it('an unreachable server and a refusing one give GF_IO without the URL or the password', async () => {
    const secret = 'pw-never-shown';
    const refusing = withDatabase(server().url, 'no_such_database').replace(/:\/\/[^@]*@/, `://gf_who_${server().user}:${secret}@`);
    const cases = [
      // Where it points (HOST:PORT) is shown; who connects, with what secret, to which database never is.
      { url: `postgres://gf_who_u:${secret}@127.0.0.1:1/gf_which_db`, message: 'GF_IO: the LangGraph PostgreSQL database at 127.0.0.1:1 refused the connection' },
      { url: refusing, message: `GF_IO: the LangGraph PostgreSQL database at ${new URL(refusing).host} refused the credentials` },
    ];
    for (const { url, message } of cases) {
      const facade = createFacade({ mode: 'library', langgraphPostgresUrl: url });
      try {
        const env = await facade.dispatcher.dispatch('threads.list', { source: { kind: 'postgres' } });
        expect(env.ok).toBe(false);
        if (env.ok) throw new Error('refused');
        expect(env.error.code).toBe('GF_IO');
        expect(env.error.message).toBe(message);
        const text = JSON.stringify(env);
        for (const hidden of [secret, 'gf_who_', 'gf_which_db', 'no_such_database', 'postgres://', '@']) expect(text).not.toContain(hidden);
        expect(await codeOf(caller(facade)('threads.history', { source: { kind: 'postgres' }, thread_id: 'x' }))).toBe('GF_IO');
      } finally {
        await facade.close();
      }
    }
  });
});
