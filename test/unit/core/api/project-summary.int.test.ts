// project.summary lists every generation still on disk, not only CURRENT's retained parent line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResults } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { putConfig, putNodes, testUuid } from '../../../support/project-fixtures';

let root: string;
let facade: Facade;
const published: string[] = [];

function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}
const call = (op: string, req: object) => facade.dispatcher.dispatch(op, req);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-summary-'));
  facade = createFacade({ mode: 'library' });
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('project.summary', () => {
  it('a checkpoint-pinned generation cut off by retention is still listed, and the summary says older ones were cleaned up', async () => {
    const dir = join(root, 'pruned');
    await createProject(dir, { catalog: registryCatalog });
    const p = await openCheckpointedProject(dir, { retainAncestors: 1 });
    let parent: string | null = null;
    for (let i = 0; i < 5; i++) {
      const g = await p.publish({ parent, changes: [putNodes(3 + i, `s${i}`), putConfig(`c${i}`)] });
      published.push(g.generationUuid);
      parent = g.generationUuid;
      if (i === 0) await new Checkpoints(p, { clock: () => 1 }).checkpoint({ name: 'first', idempotencyKey: testUuid('summary-first') });
    }
    const handle = value<{ project: string }>(await call('project.open', { path: dir })).project;
    const s = value<JsonResults['project.summary']>(await call('project.summary', { project: handle }));
    const ids = s.generations.map((g) => g.generation_uuid);
    // CURRENT's line (CURRENT + 1 retained ancestor), then the pinned first generation; the middle ones are gone.
    expect(ids).toEqual([published[4], published[3], published[0]]);
    expect(s.generations.map((g) => g.parent_generation_uuid)).toEqual([published[3], published[2], null]);
    expect(s.generations.map((g) => g.is_current)).toEqual([true, false, false]);
    expect(s.older_generations_cleaned_up).toBe(true);
  });

  it('a complete history reports nothing cleaned up', async () => {
    const dir = join(root, 'whole');
    await createProject(dir, { catalog: registryCatalog });
    const p = await openCheckpointedProject(dir);
    const g1 = await p.publish({ parent: null, changes: [putNodes(2, 'w')] });
    const g2 = await p.publish({ parent: g1.generationUuid, changes: [putNodes(3, 'w')] });
    const handle = value<{ project: string }>(await call('project.open', { path: dir })).project;
    const s = value<JsonResults['project.summary']>(await call('project.summary', { project: handle }));
    expect(s.generations.map((g) => g.generation_uuid)).toEqual([g2.generationUuid, g1.generationUuid]);
    expect(s.older_generations_cleaned_up).toBe(false);
  });
});
