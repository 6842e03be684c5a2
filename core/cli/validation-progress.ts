import diagnostics from 'node:diagnostics_channel';
import { VALIDATION_PROGRESS_CHANNEL } from '../contract/workspace';
import type { CliIo } from './io';
import type { ProgressTiming } from './diff-progress';

const DEFAULT_TIMING: ProgressTiming = { afterMs: 1000, everyMs: 1000 };

/**
 * Reports a long first validation of a generation on stderr (never stdout,
 * which carries the receipt): `what` is the command's word (`checkpoint`,
 * `revert`). The first line appears once the command has run `afterMs`, then
 * at most one per `everyMs`, with the checks done of those to run. A
 * generation whose validation record answers runs no check and prints nothing.
 */
export async function withValidationProgress<T>(io: CliIo, what: string, run: () => Promise<T>, timing: ProgressTiming = DEFAULT_TIMING): Promise<T> {
  const now = timing.now ?? (() => performance.now());
  const start = now();
  let last = -Infinity;
  const onStep = (message: unknown): void => {
    const t = now();
    if (t - start < timing.afterMs || t - last < timing.everyMs) return;
    last = t;
    const m = message as { done?: unknown; total?: unknown } | null;
    const done = typeof m?.done === 'number' ? m.done : 0;
    const total = typeof m?.total === 'number' ? m.total : 0;
    io.stderr(`${what}: validating the workspace once (${done} of ${total} checks, ${((t - start) / 1000).toFixed(1)} s)…\n`);
  };
  diagnostics.subscribe(VALIDATION_PROGRESS_CHANNEL, onStep);
  try {
    return await run();
  } finally {
    diagnostics.unsubscribe(VALIDATION_PROGRESS_CHANNEL, onStep);
  }
}
