import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startPostgres } from '../../../../support/postgres';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL test harness', () => {
  it('starts a real server on a free loopback port and leaves no process or directory behind', async () => {
    const server = await startPostgres();
    let dataDir = '';
    try {
      expect(alive(server.pid)).toBe(true);
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        const r = await client.query<{ v: string; dir: string; fsync: string }>(
          "SELECT current_setting('server_version_num') AS v, current_setting('data_directory') AS dir, current_setting('fsync') AS fsync",
        );
        expect(Number(r.rows[0]?.v)).toBeGreaterThanOrEqual(170000);
        dataDir = r.rows[0]?.dir ?? '';
        expect(existsSync(dataDir)).toBe(true);
      } finally {
        await client.end();
      }
    } finally {
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    await server.stop(); // idempotent
  });
});
