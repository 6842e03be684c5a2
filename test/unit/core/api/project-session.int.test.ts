// A project session owns what the API remembers about its project: two
// projects open in one process keep their stores and caches apart, and
// closing a project releases its session's views, stores and caches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cancellations, checkpointOperations } from '../../../../core/api/checkpoint-operations';
import { graphOperations } from '../../../../core/api/graph-operations';
import { projectOperations } from '../../../../core/api/project-operations';
import type { ProjectSession } from '../../../../core/api/project-session';
import { SessionTable } from '../../../../core/api/sessions';
import type { CheckpointView } from '../../../../core/views/checkpoint-view';
import { buildApiWorkspace } from '../../../support/api-workspace';

let root: string;
let dirs: { a: string; b: string };
const projects = new SessionTable<ProjectSession>('project');
const views = new SessionTable<CheckpointView>('view');
const cancellations = new Cancellations();
// Sessions remember registry reads however young the files are (the racy-clean age has its own tests).
const ops = { ...projectOperations(projects, { registryMemoMinAgeNs: 0n }), ...checkpointOperations(projects, views, cancellations), ...graphOperations(projects, views, cancellations) };

/** Fills the session's caches the way the screens do: the history summary and one graph diff page. */
async function browse(handle: string): Promise<void> {
  await ops['project.summary']({ project: handle });
  await ops['graph.diff']({ project: handle, from: 'baseline', to: 'more nodes' });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-session-'));
  dirs = { a: (await buildApiWorkspace(join(root, 'a'))).dir, b: (await buildApiWorkspace(join(root, 'b'))).dir };
});

afterAll(async () => {
  await views.closeAll();
  await projects.closeAll();
  rmSync(root, { recursive: true, force: true });
});

describe('a project session owns its project state', () => {
  it('two open projects share no store or cache: what one remembers the other does not', async () => {
    const a = (await ops['project.open']({ path: dirs.a })).project;
    const b = (await ops['project.open']({ path: dirs.b })).project;
    const sa = projects.get(a);
    const sb = projects.get(b);
    await browse(a);
    expect(sa.caches.restorations.size).toBe(2);
    expect(sa.caches.graph.size).toBeGreaterThan(0);
    expect(sa.caches.registry.size).toBeGreaterThan(0);
    expect(sb.caches.restorations.size).toBe(0);
    expect(sb.caches.graph.size).toBe(0);
    expect(sb.caches.registry.size).toBe(0);
    // Every request on a handle goes through the session's one registry store; another session has its own.
    expect(sa.checkpoints().store).toBe(sa.registry);
    expect(sa.checkpoints(5).store).toBe(sa.registry);
    expect(sa.revertEngine().checkpoints.store).toBe(sa.registry);
    expect(sb.registry).not.toBe(sa.registry);
    expect(sb.caches.registry).not.toBe(sa.caches.registry);
    await ops['project.close']({ project: a });
    await ops['project.close']({ project: b });
  });

  it('the same workspace opened twice gets two sessions that remember apart', async () => {
    const first = (await ops['project.open']({ path: dirs.a })).project;
    const second = (await ops['project.open']({ path: dirs.a })).project;
    await browse(first);
    expect(projects.get(first).caches.graph.size).toBeGreaterThan(0);
    expect(projects.get(second).caches.graph.size).toBe(0);
    expect(projects.get(second).caches.restorations.size).toBe(0);
    await ops['project.close']({ project: first });
    await ops['project.close']({ project: second });
  });

  it('the diff and project memos are the session project\'s: a second session of the same workspace starts cold, and close releases them', async () => {
    const first = (await ops['project.open']({ path: dirs.a })).project;
    const second = (await ops['project.open']({ path: dirs.a })).project;
    const s1 = projects.get(first);
    const s2 = projects.get(second);
    expect(s1.caches.diff.windowed).not.toBe(s2.caches.diff.windowed);
    await ops['checkpoints.diff']({ project: first, from: 'baseline', to: 'more nodes', scope: 'graph', detail: 'records', record_family_id: 'node', display: true, limit: 10 });
    const layouts = s1.caches.diff.windowed.layouts.size;
    expect(layouts).toBeGreaterThan(0);
    expect(s1.caches.project.manifests.size).toBeGreaterThan(1);
    // The same objects, read through another open project: nothing the first learnt is there.
    expect(s2.caches.diff.windowed.layouts.size).toBe(0);
    expect(s2.caches.project.manifests.size).toBe(1); // CURRENT's, read when it opened
    await ops['checkpoints.diff']({ project: second, from: 'baseline', to: 'more nodes', scope: 'graph', detail: 'records', record_family_id: 'node', display: true, limit: 10 });
    expect(s2.caches.diff.windowed.layouts.size).toBe(layouts);

    await ops['project.close']({ project: first });
    expect(s1.caches.diff.windowed.layouts.size).toBe(0);
    expect(s1.caches.diff.sortedObjects.size).toBe(0);
    expect(s1.caches.project.manifests.size).toBe(0);
    expect(s2.caches.diff.windowed.layouts.size).toBe(layouts);
    await ops['project.close']({ project: second });
  });

  it('closing a project releases its views and forgets its caches; the other project keeps working', async () => {
    const a = (await ops['project.open']({ path: dirs.a })).project;
    const b = (await ops['project.open']({ path: dirs.b })).project;
    const sa = projects.get(a);
    await browse(a);
    await browse(b);
    const { view } = await ops['view.open']({ project: a, name: 'baseline' });
    const opened = views.get(view);
    expect(opened.released).toBe(false);
    expect(sa.caches.registry.size).toBeGreaterThan(0);

    expect(await ops['project.close']({ project: a })).toEqual({ closed: true });
    expect(sa.closed).toBe(true);
    expect(opened.released).toBe(true);
    expect(views.has(view)).toBe(false);
    expect(sa.closers.size).toBe(0);
    expect(sa.caches.restorations.size).toBe(0);
    expect(sa.caches.graph.size).toBe(0);
    expect(sa.caches.registry.size).toBe(0);
    expect(() => projects.get(a)).toThrowError(expect.objectContaining({ code: 'GF_VALIDATION' }));

    const sb = projects.get(b);
    expect(sb.closed).toBe(false);
    expect(sb.caches.graph.size).toBeGreaterThan(0);
    const page = await ops['checkpoints.list']({ project: b });
    expect(page.next_page_token ?? null).toBeNull();
    await ops['project.close']({ project: b });
  });
});
