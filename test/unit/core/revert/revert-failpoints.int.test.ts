import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { diffCheckpoints, projectShell } from '../../../../core/diff/index';
import type { CheckpointReceipt } from '../../../../core/checkpoints/registry-core';
import { lookupRevertReceipt } from '../../../../core/checkpoints/revert-receipts';
import { FAILPOINT_NAMES, armFailpointForTesting, committedAt, readLineage } from '../../../../core/project/index';
import type { FailpointName, LineageRecord, Project } from '../../../../core/project/index';
import { RevertEngine, ValidationMemo, revertTransactionUuid } from '../../../../core/revert/index';
import { observe } from '../../../support/project-state';
import type { ObservedState } from '../../../support/project-state';
import { demoProject, laterChangesEverywhere, putConfigKeepingMode, tempDir } from './revert-support';

// revert_publication_failpoint_matrix: a real child process reverting a demo
// workspace (later changes in every scope) is SIGKILLed at every publication
// failpoint of the workspace store; each `.error` variant runs in-process.
// On reopen the selected generation is exactly the prior one before the
// CURRENT rename and exactly the restored one from it on, never a mixture;
// a replay with the same key then completes or returns the original receipt.

const BATCH = 4;
const NAME = 'Graph imported';
const REASON = 'Crash-test revert';
const KEY = '018f0f4e-7b8c-7000-8000-00000000c0de';
const AT = 1_765_000_000_000_000;
const POINTS = FAILPOINT_NAMES.filter((n) => n !== 'project.after_format_fsync' && n !== 'project.after_container_dir_fsync');

let tmp: string;
let fixture: string;
let child: string;
let before: ObservedState;
let after: ObservedState;
let receipt: CheckpointReceipt;
/** The reference's lineage log: the fixture's records, then the revert's (its time is `restored_at`, so exact). */
let refLog: readonly LineageRecord[];
const memo = new ValidationMemo();

function revert(p: Project<Table>): Promise<CheckpointReceipt> {
  return new RevertEngine(p, { clock: () => AT, memo }).revertToCheckpoint({ name: NAME, reason: REASON, idempotencyKey: KEY });
}

/** States of the derived validation records a revert starts from (the checkpoint's and CURRENT's generations). */
const CACHE_STATES = ['present', 'absent', 'torn'] as const;
type CacheState = (typeof CACHE_STATES)[number];

function copy(label: string, cache: CacheState = 'present'): string {
  const d = path.join(tmp, label.replace(/[^a-z0-9_.]/gi, '_'));
  fs.cpSync(fixture, d, { recursive: true });
  const records = path.join(d, 'cache', 'validation');
  if (cache === 'absent') fs.rmSync(records, { recursive: true, force: true });
  if (cache === 'torn') for (const f of fs.readdirSync(records)) fs.truncateSync(path.join(records, f), Math.floor(fs.statSync(path.join(records, f)).size / 2));
  return d;
}

function runChild(dir: string, failpoint: string): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, dir, NAME, REASON, KEY, String(AT)], {
      env: { ...process.env, GF_FAILPOINT: failpoint, NODE_PATH: path.resolve('node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ signal, stdout }));
  });
}

beforeAll(async () => {
  tmp = tempDir('gf-revert-crash-');
  fixture = path.join(tmp, 'fixture');
  const p = await demoProject(fixture, 100);
  await laterChangesEverywhere(p);
  // Two more plain generations, so the revert's cleanup has an unpinned ancestor to move to trash (gc failpoints).
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfigKeepingMode(p, 'later-1')] });
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfigKeepingMode(p, 'later-2')] });
  // The demo's checkpoints validated their generations: records exist, so the matrix below runs with them present, absent and torn.
  expect(fs.readdirSync(path.join(fixture, 'cache', 'validation')).length).toBeGreaterThan(0);
  before = await observe(fixture);
  const ref = copy('reference');
  receipt = await revert(await openCheckpointedProject(ref));
  after = await observe(ref);
  refLog = readLineage(ref).records;
  const out = path.join(tmp, 'revert-child.cjs');
  await build({ entryPoints: [path.resolve('test/unit/core/revert/revert-child.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, external: ['better-sqlite3'], logLevel: 'error' });
  child = out;
}, 180_000);

afterAll(() => {
  armFailpointForTesting(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The replay's clock differs from the killed child's: a resume that sampled it would derive another generation. */
function replayRevert(p: Project<Table>): Promise<CheckpointReceipt> {
  return new RevertEngine(p, { clock: () => AT + 987_654_321, memo }).revertToCheckpoint({ name: NAME, reason: REASON, idempotencyKey: KEY });
}

async function checkThenReplay(dir: string, name: FailpointName): Promise<void> {
  const seen = await observe(dir);
  expect({ failpoint: name, ...seen }).toEqual({ failpoint: name, ...(committedAt(name) ? after : before) });
  // After recovery: one verified record per generation that became CURRENT, the revert's only if its rename happened.
  const log = readLineage(dir);
  expect({ failpoint: name, torn: log.tornBytes, records: log.records }).toEqual({ failpoint: name, torn: 0, records: committedAt(name) ? refLog : refLog.slice(0, -1) });
  // Once the journal (with the durable extension) exists, the replay runs with another clock and must not sample it.
  const durable = fs.existsSync(path.join(dir, 'transactions', `${revertTransactionUuid(KEY)}.json`));
  const p = await openCheckpointedProject(dir);
  const replayed = await (durable ? replayRevert(p) : revert(p));
  expect({ failpoint: name, ...replayed }).toEqual({ failpoint: name, ...receipt });
  expect({ failpoint: name, ...(await observe(dir)) }).toEqual({ failpoint: name, ...after });
  // The replay never appends a second record for the same revert.
  expect({ failpoint: name, records: readLineage(dir).records }).toEqual({ failpoint: name, records: refLog });
  // The receipt record exists whatever the instant of the kill, so the replay outlives retention.
  expect({ failpoint: name, record: lookupRevertReceipt(dir, revertTransactionUuid(KEY)).kind }).toEqual({ failpoint: name, record: 'record' });
}

describe('revert_publication_failpoint_matrix', () => {
  it('the killed revert undoes later graph, ontology, knowledge and epistemic changes (ADR-0014 crash-test paragraph)', async () => {
    const p = await openCheckpointedProject(copy('later-changes'));
    const page = await diffCheckpoints({ from: 'CURRENT', to: NAME, scope: 'summary', detail: 'summary', limit: 1000 }, projectShell(new Checkpoints(p)));
    const changed = new Set(page.table.toArray().map((r) => r.toJSON() as Record<string, unknown>).filter((r) => r['change_kind'] !== 'unchanged').map((r) => String(r['scope'])));
    for (const scope of ['graph', 'ontology', 'knowledge', 'epistemic']) expect({ scope, changed: changed.has(scope) }).toEqual({ scope, changed: true });
  });

  it('the reference revert changes the workspace (the matrix can tell prior from restored)', () => {
    expect(after.generationUuid).toBe(receipt.result_generation_uuid);
    expect(refLog.at(-1)).toMatchObject({ generationUuid: receipt.result_generation_uuid, kind: 'revert', reason: REASON, restoredCheckpointUuid: receipt.checkpoint_uuid, publishedAt: AT });
    expect(after.generationUuid).not.toBe(before.generationUuid);
    expect(after.participants.map((p) => p.family)).toContain('workspace/restoration_transition');
  });

  it('SIGKILL at every publication failpoint (validation records present, absent or torn in turn): prior or restored on reopen, then replay completes with the original receipt', { timeout: 300_000 }, async () => {
    for (let i = 0; i < POINTS.length; i += BATCH) {
      const batch = POINTS.slice(i, i + BATCH);
      const dirs = batch.map((n, k) => copy(`kill-${n}`, CACHE_STATES[(i + k) % CACHE_STATES.length]));
      const results = await Promise.all(batch.map((n, k) => runChild(dirs[k] as string, n)));
      results.forEach((r, k) => expect({ failpoint: batch[k], signal: r.signal, stdout: r.stdout }).toEqual({ failpoint: batch[k], signal: 'SIGKILL', stdout: '' }));
      for (let k = 0; k < batch.length; k++) await checkThenReplay(dirs[k] as string, batch[k] as FailpointName);
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('every .error variant reports committed truthfully; reopen and replay as above', { timeout: 300_000 }, async () => {
    for (const [k, name] of POINTS.entries()) {
      const dir = copy(`error-${name}`, CACHE_STATES[k % CACHE_STATES.length]);
      const p = await openCheckpointedProject(dir);
      armFailpointForTesting(`${name}.error`);
      let err: { code?: string; committed?: boolean } | undefined;
      try {
        await revert(p);
      } catch (e) {
        err = e as { code?: string; committed?: boolean };
      } finally {
        armFailpointForTesting(undefined);
      }
      expect({ name, code: err?.code, committed: err?.committed }).toEqual({ name, code: 'GF_IO', committed: committedAt(name) });
      await checkThenReplay(dir, name);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
