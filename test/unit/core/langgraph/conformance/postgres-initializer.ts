import pg from 'pg';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { PostgresCheckpointerAdapter } from '../../../../../core/langgraph';
import { startPostgres, type PostgresServer } from '../../../../support/postgres';
import type { CheckpointerPortInitializer, PortUnderTest } from './types';

/**
 * The port conformance initializer of the Postgres adapter: one real server
 * for the suite, a fresh pool per adapter (so its counters are its own), all
 * pools ended after each case.
 */
export function postgresInitializer(): CheckpointerPortInitializer {
  let server: PostgresServer | undefined;
  let pools: pg.Pool[] = [];
  const newPool = (): pg.Pool => {
    if (server === undefined) throw new Error('postgres initializer used before beforeAll');
    const pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  return {
    name: 'PostgresCheckpointerAdapter',
    async beforeAll() {
      server = await startPostgres();
    },
    async afterAll() {
      await server?.stop();
    },
    async create(): Promise<PortUnderTest> {
      const pool = newPool();
      let out = 0;
      pool.on('acquire', () => void (out += 1));
      pool.on('release', () => void (out -= 1));
      return { adapter: new PostgresCheckpointerAdapter({ pool }), poolTotal: () => pool.totalCount, checkedOut: () => out, poolIdle: () => pool.idleCount, pooled: true };
    },
    async bare(): Promise<BaseCheckpointSaver> {
      const saver = new PostgresSaver(newPool());
      await saver.setup();
      return saver;
    },
    async destroy() {
      const ending = pools;
      pools = [];
      await Promise.all(ending.map((p) => p.end()));
    },
  };
}
