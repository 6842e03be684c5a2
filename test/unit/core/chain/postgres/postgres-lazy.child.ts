// Child process of the F1 test: which Postgres driver modules does loading the core pull in?
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const DRIVER = /[\\/]node_modules[\\/](pg|pg-pool|pg-protocol|pg-types|pg-connection-string|pgpass)[\\/]/;
const loaded = (): string[] => Object.keys(require.cache).filter((k) => DRIVER.test(k)).map((k) => k.slice(k.lastIndexOf('node_modules')));

await import('../../../../../core/chain/port');
await import('../../../../../core/chain/verify');
await import('../../../../../core/chain/memory/memory-store');
await import('../../../../../core/chain/postgres/postgres-schema');
await import('../../../../../core/chain/postgres/postgres-store');
const config = await import('../../../../../core/chain/postgres/postgres-config');
await import('../../../../../core/cli/main');
const before = loaded();

// Positive control: pointing at Postgres (a closed port) must load the driver, or the check above proves nothing.
let opened = 'no error';
try {
  await config.openPostgresChainStore('postgres://u:p@127.0.0.1:1/none', { connectionTimeoutMillis: 3000 });
} catch (e) {
  opened = String((e as { code?: unknown }).code ?? 'error');
}
process.stdout.write(JSON.stringify({ before, after: loaded(), opened }));
