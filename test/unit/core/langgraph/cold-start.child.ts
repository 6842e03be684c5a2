// Child process of the cold-start fence: which modules does importing core/langgraph resolve?
// Prints { before, after } (resolved URLs and CommonJS cache keys) as JSON on stdout.
import { createRequire, register } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
register(new URL('./resolve-recorder.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] as unknown as MessagePort[] });
const require = createRequire(import.meta.url);

function seen(): Promise<string[]> {
  return new Promise((done) => {
    port1.once('message', (urls: string[]) => done([...urls, ...Object.keys(require.cache)]));
    port1.postMessage('dump');
  });
}

const langgraph = await import('../../../../core/langgraph');
const before = await seen();

// Positive control: first use must load the packages, or the absence above proves nothing.
const dir = mkdtempSync(join(tmpdir(), 'gf-lg-cold-'));
const sqlite = new langgraph.SqliteCheckpointerAdapter({ path: join(dir, 'threads.sqlite') });
await sqlite.saver();
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
const refusing = { totalCount: 0, idleCount: 0, connect: () => Promise.reject(new Error('no server in this child')) };
const pgError = await new langgraph.PostgresCheckpointerAdapter({ pool: refusing as never }).saver().then(
  () => 'connected',
  (e: unknown) => String((e as Error).message),
);
const after = await seen();
port1.close();
process.stdout.write(JSON.stringify({ before, after, pgError }));
