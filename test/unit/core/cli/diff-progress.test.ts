import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { withDiffProgress } from '../../../../core/cli/diff-progress';
import { DIFF_PROGRESS_CHANNEL } from '../../../../core/diff/steps';

describe('gf checkpoint diff progress', () => {
  it('reports a long diff on stderr only, throttled, and stops listening when it ends', async () => {
    let t = 0;
    let err = '';
    let out = '';
    const io = { stdout: (c: string | Uint8Array) => void (out += String(c)), stderr: (c: string) => void (err += c) };
    const channel = diagnostics.channel(DIFF_PROGRESS_CHANNEL);
    const result = await withDiffProgress(
      io,
      async () => {
        for (let i = 0; i < 40; i++) {
          t += 100; // 4 s of simulated diff, one pause every 100 ms
          channel.publish({ phase: 'merge' });
        }
        return 'done';
      },
      { afterMs: 1000, everyMs: 1000, now: () => t },
    );
    expect(result).toBe('done');
    expect(out).toBe('');
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(4); // at 1 s, 2 s, 3 s, 4 s
    expect(lines[0]).toMatch(/^diff: working \(merge, 10 steps, 1\.0 s\)…$/);
    expect(channel.hasSubscribers).toBe(false);
  });

  it('says nothing for a short diff', async () => {
    let err = '';
    const io = { stdout: () => undefined, stderr: (c: string) => void (err += c) };
    let t = 0;
    await withDiffProgress(io, async () => {
      t += 500;
      diagnostics.channel(DIFF_PROGRESS_CHANNEL).publish({ phase: 'merge' });
    }, { afterMs: 1000, everyMs: 1000, now: () => t });
    expect(err).toBe('');
  });
});
