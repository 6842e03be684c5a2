import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { PROVENANCE_EVENT, encodeRecords, recordsFromTable } from '../../../../core/participants/index';
import { armFailpointForTesting } from '../../../../core/project/index';
import type { Project } from '../../../../core/project/index';
import { readJournal } from '../../../../core/project/journal';
import { RevertEngine, ValidationMemo, revertTransactionUuid } from '../../../../core/revert/index';
import { demoProject, tempDir } from './revert-support';

// revert_resume_transaction_failed (ADR-0014 revert; issue 21 item 9): the
// resume branch of an interrupted revert whose prior CURRENT is gone. It is
// reachable only while the interrupted revert's journal survives a later
// publication: recovery labels the journal ABORTED at the next open, and the
// cleanup after the next publication deletes it (then a replay is a fresh
// first attempt, which is right: the key never committed). A cleanup that
// fails after that publication (here: an I/O error after the trash move,
// before journals are pruned) leaves the journal, and the replay must refuse
// with GF_TRANSACTION_FAILED, committed false, publishing nothing.

let tmp: string;
let dir: string;
let project: Project<Table>;
const NAME = 'Graph imported';
const KEY = '018f0f4e-7b8c-7000-8000-00000000aa01';
const TXN = revertTransactionUuid(KEY);

async function editProvenance(p: Project<Table>, agent: string): Promise<void> {
  const lease = p.lease();
  const events = recordsFromTable(PROVENANCE_EVENT, lease.readTable('provenance/event') as Table) as Record<string, unknown>[];
  lease.release();
  const bytes = encodeRecords(PROVENANCE_EVENT, events.map((e, i) => (i === 0 ? { ...e, agent } : e)));
  await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'provenance', recordFamilyId: 'event', bytes }] });
}

async function attempt(p: Project<Table>, at: number): Promise<{ code: string; committed?: boolean; result?: string }> {
  try {
    const r = await new RevertEngine(p, { clock: () => at, memo: new ValidationMemo() }).revertToCheckpoint({ name: NAME, reason: 'resume test', idempotencyKey: KEY });
    return { code: 'ok', result: r.result_generation_uuid ?? undefined };
  } catch (e) {
    const g = e as { code: string; committed?: boolean };
    return { code: g.code, committed: g.committed };
  } finally {
    armFailpointForTesting(undefined);
  }
}

beforeAll(async () => {
  tmp = tempDir('gf-revert-resume-');
  dir = path.join(tmp, 'demo');
  project = await demoProject(dir, 60);
}, 120_000);

afterAll(() => {
  armFailpointForTesting(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('revert_resume_transaction_failed', () => {
  it('a replay whose interrupted journal outlived a later publication refuses with GF_TRANSACTION_FAILED and publishes nothing', { timeout: 120_000 }, async () => {
    armFailpointForTesting('project.after_journal_durable.error');
    expect(await attempt(project, 1_000)).toEqual({ code: 'GF_IO', committed: false });
    expect(readJournal(dir, TXN)?.state).toBe('ABORTED');

    // Another writer moves CURRENT on; its cleanup fails after moving an old generation to trash.
    armFailpointForTesting('project.after_gc_move.error');
    const moved = await editProvenance(project, 'agent-later').then(() => 'published', (e: { code: string; committed?: boolean }) => `${e.code}/${String(e.committed)}`);
    armFailpointForTesting(undefined);
    expect(moved).toBe('GF_IO/true');
    expect(readJournal(dir, TXN)?.state).toBe('ABORTED');
    const current = project.current()?.generationUuid;

    const reopened = await openCheckpointedProject(dir);
    expect(await attempt(reopened, 2_000)).toEqual({ code: 'GF_TRANSACTION_FAILED', committed: false });
    expect(reopened.current()?.generationUuid).toBe(current);
  });

  it('once cleanup has pruned the aborted journal, the same key is a fresh first attempt (it never committed)', { timeout: 120_000 }, async () => {
    const p = await openCheckpointedProject(dir);
    await p.cleanup();
    expect(readJournal(dir, TXN)).toBeUndefined();
    const before = p.current()?.generationUuid;
    const r = await attempt(p, 3_000);
    expect(r.code).toBe('ok');
    expect(p.current()?.generationUuid).toBe(r.result);
    expect(r.result).not.toBe(before);
    // And it is now the key's one publication: a replay returns it.
    expect(await attempt(p, 4_000)).toEqual(r);
  });
});
