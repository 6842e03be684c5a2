import diagnostics from 'node:diagnostics_channel';
import { DIFF_NOTICE_CHANNEL, DIFF_PROGRESS_CHANNEL } from '../contract/diff';
import type { CliIo } from './io';

/** When a diff counts as long, and how often it then reports, in milliseconds. */
export interface ProgressTiming {
  readonly afterMs: number;
  readonly everyMs: number;
  readonly now?: () => number;
}

const DEFAULT_TIMING: ProgressTiming = { afterMs: 1000, everyMs: 1000 };

/**
 * Reports a long diff's progress on stderr (never stdout, which carries the result).
 *
 * Listens to the diff engine's pause channel while `run` is in flight: the
 * first line appears once the diff has run `afterMs`, then at most one line
 * per `everyMs`. Returns `run`'s result; always unsubscribes.
 */
export async function withDiffProgress<T>(io: CliIo, run: () => Promise<T>, timing: ProgressTiming = DEFAULT_TIMING): Promise<T> {
  const now = timing.now ?? (() => performance.now());
  const start = now();
  let last = -Infinity;
  let pauses = 0;
  const onPause = (message: unknown): void => {
    pauses++;
    const t = now();
    if (t - start < timing.afterMs || t - last < timing.everyMs) return;
    last = t;
    const phase = (message as { phase?: unknown } | null)?.phase;
    // A record index is built once per object, on its first diff: say so, since that diff is the slow one.
    const doing = phase === 'index' ? 'building the record index for the next diffs' : typeof phase === 'string' ? phase : 'running';
    io.stderr(`diff: working (${doing}, ${pauses} steps, ${((t - start) / 1000).toFixed(1)} s)…\n`);
  };
  let noted = false;
  const onNotice = (message: unknown): void => {
    if (noted || (message as { kind?: unknown } | null)?.kind !== 'token_key_in_memory') return;
    noted = true;
    io.stderr("note: the workspace cannot be written (read-only); the page-token key is kept in memory, so this diff's page tokens are valid in this process only\n");
  };
  diagnostics.subscribe(DIFF_PROGRESS_CHANNEL, onPause);
  diagnostics.subscribe(DIFF_NOTICE_CHANNEL, onNotice);
  try {
    return await run();
  } finally {
    diagnostics.unsubscribe(DIFF_PROGRESS_CHANNEL, onPause);
    diagnostics.unsubscribe(DIFF_NOTICE_CHANNEL, onNotice);
  }
}
