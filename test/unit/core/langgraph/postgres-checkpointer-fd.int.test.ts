// Story S5-01 E3: pool → adapter → put → pool end, 1,024 times, leaks no file descriptor.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresCheckpointerAdapter } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { putChain } from './langgraph-support';

const server = usePostgres({ beforeAll, afterAll });
const CYCLES = 1_024;
const openFds = (): number => readdirSync('/proc/self/fd').length;

it('E3: 1,024 sequential cycles of pool → adapter → put → pool end leave the open file descriptors where they were', async () => {
  // One warm-up cycle loads the modules (their files are closed again) before the count.
  const cycle = async (k: number): Promise<void> => {
    const pool = new pg.Pool({ connectionString: server().url, max: 1 });
    try {
      const saver = await new PostgresCheckpointerAdapter({ pool }).saver();
      await putChain(saver, `e3-${process.pid}-${k}`, 1);
    } finally {
      await pool.end();
    }
  };
  await cycle(-1);
  const before = openFds();
  for (let k = 0; k < CYCLES; k++) await cycle(k);
  const after = openFds();
  expect(after).toBe(before);
  const client = new pg.Client({ connectionString: server().url });
  await client.connect();
  const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM public.checkpoints WHERE thread_id LIKE 'e3-%'").finally(() => client.end());
  expect(Number(rows[0]?.n)).toBe(CYCLES + 1);
}, 300_000);
