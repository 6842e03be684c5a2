import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { OPERATION_NAMES } from '../../../../core/contract/operations';
import type { Envelope } from '../../../../core/contract/wire';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { putConfig, putNodes } from '../../../support/project-fixtures';

const root = mkdtempSync(join(tmpdir(), 'gf-api-project-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}
function code(env: Envelope): string {
  return env.ok ? 'ok' : env.error.code;
}

describe('project operations through the facade dispatcher', () => {
  it('creates, opens and summarizes a workspace with parents and CURRENT', async () => {
    const facade = createFacade({ mode: 'library' });
    const dir = join(root, 'ws');
    const created = value<{ project: string; label: string }>(await facade.dispatcher.dispatch('project.create', { path: dir }));
    expect(created.label).toBe('ws');
    expect(created.project).toMatch(/^[0-9a-f-]{36}$/);
    const empty = value<{ initialized: boolean; generations: unknown[] }>(await facade.dispatcher.dispatch('project.summary', { project: created.project }));
    expect(empty).toEqual({ initialized: false, current: null, generations: [], older_generations_cleaned_up: false });

    const p = await openProject(dir, { catalog: registryCatalog });
    const g1 = await p.publish({ parent: null, changes: [putNodes(3, 'a'), putConfig('one')] });
    const g2 = await p.publish({ parent: g1.generationUuid, changes: [putNodes(4, 'a')] });

    const opened = value<{ project: string }>(await facade.dispatcher.dispatch('project.open', { path: dir }));
    expect(opened.project).not.toBe(created.project);
    const s = value<{
      initialized: boolean;
      current: { generation_uuid: string; manifest_sha256: string };
      generations: { generation_uuid: string; parent_generation_uuid: string | null; is_current: boolean; participant_count: number; restoration: unknown }[];
    }>(await facade.dispatcher.dispatch('project.summary', { project: opened.project }));
    expect(s.initialized).toBe(true);
    expect(s.current).toEqual({ generation_uuid: g2.generationUuid, manifest_sha256: g2.manifestSha256 });
    expect(s.generations.map((g) => [g.generation_uuid, g.parent_generation_uuid, g.is_current])).toEqual([
      [g2.generationUuid, g1.generationUuid, true],
      [g1.generationUuid, null, false],
    ]);
    // nodes + configuration, plus the mandatory ontology document a first publication gets filled in (o21).
    expect(s.generations.map((g) => g.participant_count)).toEqual([3, 3]);
    expect(s.generations.every((g) => g.restoration === null)).toBe(true);

    expect(value<{ closed: boolean }>(await facade.dispatcher.dispatch('project.close', { project: opened.project })).closed).toBe(true);
    expect(code(await facade.dispatcher.dispatch('project.summary', { project: opened.project }))).toBe('GF_VALIDATION');
    await facade.close();
  });

  it('refuses relative paths, non-projects and unknown handles without touching anything', async () => {
    const facade = createFacade({ mode: 'library' });
    const plain = join(root, 'plain');
    rmSync(plain, { recursive: true, force: true });
    mkdtempSync(join(root, 'x-'));
    const notProject = mkdtempSync(join(root, 'np-'));
    writeFileSync(join(notProject, 'notes.txt'), 'hello');
    expect(code(await facade.dispatcher.dispatch('project.open', { path: 'relative/dir' }))).toBe('GF_VALIDATION');
    expect(code(await facade.dispatcher.dispatch('project.create', { path: 'relative/dir' }))).toBe('GF_VALIDATION');
    expect(code(await facade.dispatcher.dispatch('project.open', { path: notProject }))).toBe('GF_NO_WORKSPACE');
    expect(code(await facade.dispatcher.dispatch('project.create', { path: notProject }))).toBe('GF_UNSUPPORTED_PROJECT_FORMAT');
    expect(readdirSync(notProject)).toEqual(['notes.txt']);
    expect(code(await facade.dispatcher.dispatch('project.open', { path: plain }))).toBe('GF_NO_WORKSPACE');
    expect(code(await facade.dispatcher.dispatch('project.summary', { project: '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b' }))).toBe('GF_VALIDATION');
    const err = await facade.dispatcher.dispatch('project.open', { path: join(notProject, 'secret-name') });
    expect(JSON.stringify(err)).not.toContain(root);
    await facade.close();
  });

  it('app.session reports the launcher project and the runtime operation list', async () => {
    const facade = createFacade({ mode: 'browser' });
    const dir = join(root, 'launch');
    value(await facade.dispatcher.dispatch('project.create', { path: dir }));
    const launched = await facade.launch(dir);
    const s = value<{ project: { project: string; label: string }; mode: string; operations: string[] }>(await facade.dispatcher.dispatch('app.session', {}));
    expect(s.project).toEqual(launched);
    expect(s.mode).toBe('browser');
    expect(s.operations).toEqual(facade.dispatcher.available);
    expect(s.operations).toContain('project.summary');
    // Every declared operation is implemented (Implementations is total): the session offers them all.
    expect([...s.operations].sort()).toEqual([...OPERATION_NAMES].sort());
    await facade.close();
  });

  it('app.session stops reporting the launch workspace once its handle is closed (a renderer that opened another closed it): a reload starts on the open screen, not on a dead handle', async () => {
    const facade = createFacade({ mode: 'browser' });
    const dir = join(root, 'launch-closed');
    value(await facade.dispatcher.dispatch('project.create', { path: dir }));
    const launched = await facade.launch(dir);
    value(await facade.dispatcher.dispatch('project.close', { project: launched.project }));
    const s = value<{ project: unknown }>(await facade.dispatcher.dispatch('app.session', {}));
    expect(s.project).toBeNull();
    await facade.close();
  });

  it("app.session offers the launch's threads sources: langgraph.sqlite beside the launched workspace, and a Postgres flag that never carries the URL", async () => {
    const url = 'postgres://agent:s3cret-pw@127.0.0.1:1/threads';
    const bare = createFacade({ mode: 'browser', langgraphPostgresUrl: '' });
    const none = value<{ threads: unknown }>(await bare.dispatcher.dispatch('app.session', {}));
    expect(none.threads).toEqual({ default_sqlite: null, postgres: false });
    await bare.close();
    const facade = createFacade({ mode: 'browser', langgraphPostgresUrl: url });
    const parent = join(root, 'with-threads');
    const dir = join(parent, 'demo');
    mkdirSync(parent);
    value(await facade.dispatcher.dispatch('project.create', { path: dir }));
    writeFileSync(join(parent, 'langgraph.sqlite'), '');
    await facade.launch(dir);
    const env = await facade.dispatcher.dispatch('app.session', {});
    expect(value<{ threads: unknown }>(env).threads).toEqual({ default_sqlite: join(parent, 'langgraph.sqlite'), postgres: true });
    expect(JSON.stringify(env)).not.toContain('s3cret');
    expect(JSON.stringify(env)).not.toContain('postgres://');
    await facade.close();
  });
});
