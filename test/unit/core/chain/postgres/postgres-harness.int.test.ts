import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
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

  it('a test process killed with SIGKILL leaves no server behind (the watchdog stops it and removes its directory)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'postgres-harness.child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        if (buf.includes('\n')) resolve(buf.split('\n')[0] ?? '');
      });
      child.on('exit', () => reject(new Error('harness child exited before reporting')));
    });
    const { pid, url } = JSON.parse(line) as { pid: number; url: string };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const dir = (await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0]?.d ?? '';
    await client.end();
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000, interval: 100 });
    await vi.waitFor(() => expect(existsSync(dir)).toBe(false), { timeout: 10_000, interval: 100 });
  }, 60_000);
});
