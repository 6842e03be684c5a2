// The demo's agent threads (issue 17): `gf demo create` writes langgraph.sqlite beside the workspace
// by running a real compiled StateGraph; the threads.* operations browse it.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { main } from '../../../../core/cli/main';
import { caller } from '../langgraph/threads-support';

const base = mkdtempSync(join(tmpdir(), 'gf-lg-demo-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('gf demo create: langgraph.sqlite', () => {
  it('12 threads beside the workspace: finished, interrupted, failed and retried, restored; an existing file is kept', { timeout: 120_000 }, async () => {
    const dir = join(base, 'demo');
    expect(await main(['demo', 'create', dir, '--records', '10'], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
    const path = join(base, 'langgraph.sqlite');
    expect(existsSync(path)).toBe(true);
    expect(existsSync(join(dir, 'langgraph.sqlite'))).toBe(false);
    const facade = createFacade({ mode: 'library' });
    const call = caller(facade);
    const source = { kind: 'sqlite' as const, path };
    try {
      const list = await call('threads.list', { source });
      expect(list.rows.length).toBe(12);
      // Waiting at the interrupt; review-12's restored head waits for `review` too, but its interrupt is raised
      // again only when the graph resumes (LangGraph ties pending writes to the checkpoint that ran the task).
      expect(list.rows.filter((r) => r.interrupted).map((r) => r.thread_id)).toEqual(['review-09', 'review-10']);
      const published = await call('threads.state', { source, thread_id: 'review-01' });
      expect(published.next).toEqual([]);
      expect(published.values.find((v) => v.channel === 'published')?.value).toBe(true);
      const rejected = await call('threads.state', { source, thread_id: 'review-08' });
      expect(rejected.values.find((v) => v.channel === 'published')?.value).toBe(false);
      // review-11 failed in fetch once: its history holds the error write, then the retry ran on.
      const retried = await call('threads.history', { source, thread_id: 'review-11' });
      const beforeFetch = retried.rows.find((r) => r.next.join() === 'fetch')?.checkpoint_id as string;
      const failedAt = await call('threads.state', { source, thread_id: 'review-11', checkpoint_id: beforeFetch });
      expect(failedAt.pending_writes.map((w) => w.channel)).toContain('__error__');
      expect(retried.rows[0]?.next).toEqual([]);
      // review-12 was restored to its review checkpoint with a reason.
      const restored = (await call('threads.history', { source, thread_id: 'review-12', limit: 1 })).rows[0];
      expect(restored?.restored_from).not.toBeNull();
      expect(restored?.next).toEqual(['review']);
      const meta = (await call('threads.state', { source, thread_id: 'review-12' })).metadata as Record<string, unknown>;
      expect(meta['reason']).toBe('published before the second reviewer signed off');
    } finally {
      await facade.close();
    }
    const mtime = statSync(path).mtimeMs;
    expect(await main(['demo', 'create', join(base, 'demo2'), '--records', '10'], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
    expect(statSync(path).mtimeMs).toBe(mtime);
  });
});
