import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { REVERT_RECEIPTS_MAX, lookupRevertReceipt, pruneRevertReceipts } from '../../../../core/checkpoints/revert-receipts';
import type { Project } from '../../../../core/project/index';
import { RevertEngine, ValidationMemo, revertTransactionUuid } from '../../../../core/revert/index';
import { testUuid } from '../../../support/project-fixtures';
import { counterClock, demoProject, putConfigKeepingMode, tempDir } from '../revert/revert-support';


// ADR-0014 "Identical replay returns the original receipt" and "the replay
// record remains directly addressable": the revert receipt record outlives
// the journal that cleanup deletes with the generation.

let tmp: string;
let dir: string;
let project: Project<Table>;

beforeAll(async () => {
  tmp = tempDir('gf-revert-receipts-');
  dir = path.join(tmp, 'demo');
  project = await demoProject(dir, 40);
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const KEY = (n: number): string => testUuid(`receipt-key-${n}`).replace(/^(.{14})./, '$18');

function engine(clock = counterClock()): RevertEngine {
  return new RevertEngine(project, { clock, memo: new ValidationMemo() });
}

async function laterPublications(n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [putConfigKeepingMode(project, `${tag}-${i}`)] });
}

function generationDirs(): string[] {
  return fs.readdirSync(path.join(dir, 'generations')).sort();
}

describe('identical_replay_returns_original_receipt_after_retention', () => {
  it('a replay after 50 later publications and a full cleanup publishes nothing and returns the byte-identical receipt', async () => {
    const key = KEY(1);
    const txn = revertTransactionUuid(key);
    const request = { name: 'Graph imported', reason: 'Undo the import', idempotencyKey: key };
    const receipt = await engine().revertToCheckpoint(request);
    const bytes = JSON.stringify(receipt);

    await laterPublications(50, 'after-revert');
    await project.cleanup();
    // Retention really removed the revert's generation and its journal: only the record is left.
    expect(fs.existsSync(path.join(dir, 'generations', receipt.result_generation_uuid ?? 'none'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'transactions', `${txn}.json`))).toBe(false);
    expect(lookupRevertReceipt(dir, txn).kind).toBe('record');

    const current = project.current()?.generationUuid;
    const gens = generationDirs();
    // A different clock: a replay that sampled it would derive another generation UUID.
    const replayed = await engine(counterClock(1_900_000_000_000_000)).revertToCheckpoint(request);
    expect(JSON.stringify(replayed)).toBe(bytes);
    expect(project.current()?.generationUuid).toBe(current);
    expect(generationDirs()).toEqual(gens);

    // The record also answers conflicts: another request under the same key.
    const err = await engine().revertToCheckpoint({ ...request, reason: 'Another reason' }).catch((e: unknown) => e as { code?: string; committed?: boolean });
    expect(err).toMatchObject({ code: 'GF_IDEMPOTENCY_CONFLICT', committed: false });
    expect(project.current()?.generationUuid).toBe(current);
  });

  it('a key whose record was pruned past the bound is refused with a typed error, never published again', async () => {
    const key = KEY(3);
    const request = { name: 'Graph imported', reason: 'Pruned later', idempotencyKey: key };
    await engine().revertToCheckpoint(request);
    await laterPublications(5, 'before-prune');
    await project.cleanup();
    // Shrink the window to nothing (the production bound is REVERT_RECEIPTS_MAX).
    expect(REVERT_RECEIPTS_MAX).toBe(4096);
    expect(pruneRevertReceipts(dir, 0, 0)).toBeGreaterThanOrEqual(1);
    expect(lookupRevertReceipt(dir, revertTransactionUuid(key)).kind).toBe('pruned');
    const current = project.current()?.generationUuid;
    const gens = generationDirs();
    const err = await engine().revertToCheckpoint(request).catch((e: unknown) => e as { code?: string; committed?: boolean; details?: Record<string, unknown> });
    expect(err).toMatchObject({ code: 'GF_IDEMPOTENCY_CONFLICT', committed: false, details: { phase: 'receipt_pruned', limit: 4096 } });
    expect(project.current()?.generationUuid).toBe(current);
    expect(generationDirs()).toEqual(gens);
    // A fresh key still reverts.
    const fresh = await engine().revertToCheckpoint({ ...request, idempotencyKey: KEY(4) });
    expect(project.current()?.generationUuid).toBe(fresh.result_generation_uuid);
  });

  it('cleanup records a published revert whose own record write never happened (crash between publication and record)', async () => {
    const key = KEY(5);
    const txn = revertTransactionUuid(key);
    const request = { name: 'Graph imported', reason: 'Crash window', idempotencyKey: key };
    const receipt = await engine().revertToCheckpoint(request);
    // The state a SIGKILL right after the PUBLISHED journal leaves: journal, no record.
    fs.rmSync(path.join(dir, 'receipts', 'revert', `${txn}.json`));
    expect(lookupRevertReceipt(dir, txn).kind).toBe('unknown');
    await laterPublications(4, 'after-crash');
    await project.cleanup();
    expect(fs.existsSync(path.join(dir, 'transactions', `${txn}.json`))).toBe(false);
    const gens = generationDirs();
    const reopened = await openCheckpointedProject(dir);
    const replayed = await new RevertEngine(reopened, { clock: counterClock(3_000_000_000_000_000), memo: new ValidationMemo() }).revertToCheckpoint(request);
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(receipt));
    expect(generationDirs()).toEqual(gens);
  });
});
