import pg from 'pg';
import { PostgresChainStore } from '../../../../../core/chain/postgres/postgres-store';
import { startPostgres, type PostgresServer } from '../../../../support/postgres';
import type { ChainConformanceInitializer } from '../conformance';
import { crashInsideLock } from '../conformance/crash-child';

/**
 * The conformance initializer of the Postgres chain store.
 *
 * One real server for the suite; every `create()` is a fresh store in a
 * schema of its own on one shared pool (a fresh, empty ledger in ~1 ms).
 * `tamper` rewrites a row with plain SQL, as an attacker with database
 * access would.
 */
export function postgresInitializer(): ChainConformanceInitializer<PostgresChainStore> & { server(): PostgresServer; pool(): pg.Pool } {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  let n = 0;
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('postgres initializer used before beforeAll');
    return v;
  };
  return {
    name: 'postgres',
    numRuns: 8,
    async beforeAll() {
      server = await startPostgres();
      pool = new pg.Pool({ connectionString: server.url, max: 8, connectionTimeoutMillis: 10_000 });
      pool.on('error', () => undefined);
    },
    async afterAll() {
      await pool?.end();
      await server?.stop();
    },
    async create({ clock }) {
      const store = new PostgresChainStore({ pool: need(pool), schema: `conf_${process.pid}_${(n += 1)}`, clock });
      await store.setup();
      return store;
    },
    async destroy(store) {
      await store.close();
    },
    async tamper(store, workflowId, sequence, fields) {
      const sets: string[] = [];
      const values: unknown[] = [workflowId, sequence];
      for (const [column, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        values.push(value instanceof Uint8Array ? Buffer.from(value) : value);
        sets.push(`${column} = $${values.length}`);
      }
      const table = `"${store.schema}".checkpoint_chain`;
      const update = (): Promise<pg.QueryResult> => need(pool).query(`UPDATE ${table} SET ${sets.join(', ')} WHERE workflow_id = $1 AND sequence = $2`, values);
      let r: pg.QueryResult;
      try {
        r = await update();
      } catch (e) {
        // The database itself refuses a relinked row (unique prior head): the attacker,
        // who has database access, drops that constraint first (this store's schema only).
        const constraint = (e as { code?: string; constraint?: string }).code === '23505' ? (e as { constraint?: string }).constraint : undefined;
        if (constraint === undefined) throw e;
        await need(pool).query(`ALTER TABLE ${table} DROP CONSTRAINT "${constraint}"`);
        r = await update();
      }
      if (r.rowCount !== 1) throw new RangeError('no such persisted row');
    },
    crashInsideLock: async (store, _workflowId, event) =>
      crashInsideLock(['postgres', store.schema], event, { ...process.env, GF_CHAIN_POSTGRES_URL: need(server).url }),
    server: () => need(server),
    pool: () => need(pool),
  };
}
