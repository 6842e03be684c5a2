// Story S5-01 E2: a real compiled StateGraph interrupted in process A (then SIGKILLed)
// resumes in this process on a fresh adapter: same state bytes, same final result.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Command, MemorySaver } from '@langchain/langgraph';
import { PostgresCheckpointerAdapter, SqliteCheckpointerAdapter, type LangGraphCheckpointerPort } from '../../../../core/langgraph';
import { usePostgres } from '../../../support/postgres';
import { buildResumeGraph, RESUME_ANSWER, RESUME_INPUT, serializedThread, threadConfig } from './resume-graph';

const CHILD = fileURLToPath(new URL('./resume-a.child.ts', import.meta.url));
const server = usePostgres({ beforeAll, afterAll });
const dir = mkdtempSync(join(tmpdir(), 'gf-lg-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ChildReport {
  readonly interrupted: boolean;
  readonly thread: Awaited<ReturnType<typeof serializedThread>>;
}

/** Runs process A until it reports its interrupted thread, then kills it with SIGKILL. */
async function runUntilInterruptThenKill(kind: 'postgres' | 'sqlite', target: string, threadId: string): Promise<ChildReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, kind, threadId], { env: { ...process.env, GF_TEST_LG_TARGET: target }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((done) => child.on('exit', (code, signal) => done(signal ?? code)));
  const line = await new Promise<string>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) done(out.slice(0, nl));
    });
    child.on('exit', (code) => fail(new Error(`process A exited (${String(code)}) before reporting: ${err}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return JSON.parse(line) as ChildReport;
}

/** What the same graph gives when nothing dies in between (in memory, one process). */
async function uninterruptedResult(): Promise<unknown> {
  const graph = buildResumeGraph(new MemorySaver());
  await graph.invoke(RESUME_INPUT, threadConfig('baseline'));
  return graph.invoke(new Command({ resume: RESUME_ANSWER }), threadConfig('baseline'));
}

async function resumeInThisProcess(adapter: LangGraphCheckpointerPort, report: ChildReport, threadId: string): Promise<void> {
  expect(report.interrupted).toBe(true);
  expect(report.thread.next).toEqual(['review']);
  const saver = await adapter.saver();
  const loaded = await serializedThread(saver, threadId);
  expect(loaded.checkpoint).toBe(report.thread.checkpoint);
  expect(loaded.values).toBe(report.thread.values);
  const final = await buildResumeGraph(saver).invoke(new Command({ resume: RESUME_ANSWER }), threadConfig(threadId));
  const expected = await uninterruptedResult();
  expect(final).toEqual(expected);
  expect(final).toMatchObject({ steps: ['plan', 'review', 'apply'], total: 35, approval: RESUME_ANSWER });
  expect(adapter.health().last_write_age_seconds).toBeLessThanOrEqual(1);
}

describe('E2: cross-process resume of a compiled StateGraph', () => {
  it('Postgres: interrupted in process A (SIGKILLed), loaded byte-identical and finished in process B on a fresh adapter', async () => {
    const threadId = `resume-pg-${process.pid}`;
    const report = await runUntilInterruptThenKill('postgres', server().url, threadId);
    const pool = new pg.Pool({ connectionString: server().url, max: 2 });
    try {
      await resumeInThisProcess(new PostgresCheckpointerAdapter({ pool }), report, threadId);
    } finally {
      await pool.end();
    }
  }, 90_000);

  it('SQLite: interrupted in process A (SIGKILLed), loaded byte-identical and finished in process B on a fresh adapter', async () => {
    const threadId = `resume-sqlite-${process.pid}`;
    const path = join(dir, 'threads.sqlite');
    const report = await runUntilInterruptThenKill('sqlite', path, threadId);
    const adapter = new SqliteCheckpointerAdapter({ path });
    try {
      await resumeInThisProcess(adapter, report, threadId);
    } finally {
      await adapter.close();
    }
  }, 90_000);
});
