// LangGraph's official conformance suite against the Postgres adapter's saver()
// and, in the same run and on the same server, against bare upstream PostgresSaver.
import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { PostgresCheckpointerAdapter } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { runValidation } from './validation-support';

const server = usePostgres({ beforeAll, afterAll });
let pool: pg.Pool | undefined;
const openPool = (): pg.Pool => {
  if (pool === undefined) {
    pool = new pg.Pool({ connectionString: server().url, max: 4 });
    // An idle client the server drops (57P01 at its shutdown) is reported on the pool; without a listener
    // node-postgres throws it as an uncaught exception, failing the run after every case passed.
    pool.on('error', () => undefined);
  }
  return pool;
};
afterAll(async () => {
  await pool?.end();
});
/** Upstream's cases assume an empty store (some reuse fixed thread ids): each starts from empty tables. */
async function emptied<S>(saver: S): Promise<S> {
  await openPool().query('TRUNCATE public.checkpoints, public.checkpoint_blobs, public.checkpoint_writes');
  return saver;
}

// Upstream PostgresSaver 1.0.5 passes every case: no known failures.
runValidation({
  checkpointerName: 'gf PostgresCheckpointerAdapter',
  createCheckpointer: async () => emptied(await new PostgresCheckpointerAdapter({ pool: openPool() }).saver()),
});

runValidation({
  checkpointerName: 'bare upstream PostgresSaver',
  createCheckpointer: async () => {
    const saver = new PostgresSaver(openPool());
    await saver.setup();
    return emptied(saver);
  },
});
