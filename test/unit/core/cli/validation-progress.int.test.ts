import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { withDiffProgress } from '../../../../core/cli/diff-progress';
import { withValidationProgress } from '../../../../core/cli/validation-progress';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { ValidationMemo } from '../../../../core/checkpoints/snapshot-validation';
import { VALIDATION_PROGRESS_CHANNEL } from '../../../../core/contract/workspace';
import { DIFF_PROGRESS_CHANNEL } from '../../../../core/diff/steps';
import { putConfig, putEdges, putNodes } from '../../../support/project-fixtures';
import { counterClock, workspace } from '../checkpoints/checkpoint-support';
import type { Workspace } from '../checkpoints/checkpoint-support';

const spaces: Workspace[] = [];
afterEach(() => {
  for (const w of spaces.splice(0)) w.close();
});

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;
const io = (sink: { err: string; out: string }) => ({ stdout: (c: string | Uint8Array) => void (sink.out += String(c)), stderr: (c: string) => void (sink.err += c) });

describe('progress of a first validation (gf checkpoint create, gf checkpoint revert)', () => {
  it('a real first validation reports each check it runs on stderr; with the validation record it runs none and says nothing', async () => {
    const w = await workspace();
    spaces.push(w);
    await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    w.project.caches.verifiedObjects.clear();
    const cps = new Checkpoints(w.project, { clock: counterClock(), memo: new ValidationMemo() });
    const first = { err: '', out: '' };
    await withValidationProgress(io(first), 'checkpoint', () => cps.checkpoint({ name: 'one', idempotencyKey: op(1) }), { afterMs: 0, everyMs: 0 });
    const lines = first.err.trim().split('\n');
    expect(first.out).toBe('');
    expect(lines.length).toBeGreaterThan(3);
    const total = Number(/of (\d+) checks/.exec(lines[0] ?? '')?.[1]);
    expect(lines).toHaveLength(total);
    expect(lines.at(-1)).toMatch(new RegExp(`^checkpoint: validating the workspace once \\(${total} of ${total} checks, \\d+\\.\\d s\\)…$`));
    expect(diagnostics.channel(VALIDATION_PROGRESS_CHANNEL).hasSubscribers).toBe(false);

    const second = { err: '', out: '' };
    await withValidationProgress(io(second), 'checkpoint', () => new Checkpoints(w.project, { clock: counterClock(2), memo: new ValidationMemo() }).checkpoint({ name: 'two', idempotencyKey: op(2) }), { afterMs: 0, everyMs: 0 });
    expect(second.err).toBe('');
  });

  it('a diff building a record index says so', async () => {
    const sink = { err: '', out: '' };
    let t = 0;
    await withDiffProgress(io(sink), async () => {
      t += 2000;
      diagnostics.channel(DIFF_PROGRESS_CHANNEL).publish({ phase: 'index' });
    }, { afterMs: 1000, everyMs: 1000, now: () => t });
    expect(sink.err).toBe('diff: working (building the record index for the next diffs, 1 steps, 2.0 s)…\n');
  });
});
