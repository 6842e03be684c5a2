import { GfError } from '../errors';

/** Records between two cancellation checks while merging (the contract says at most 4,096). */
export const CANCEL_CHECK_INTERVAL = 4096;

/**
 * Throws `GF_CANCELLED` when `signal` has been aborted.
 *
 * The diff calls this before each participant and at least every
 * `CANCEL_CHECK_INTERVAL` decoded records; a cancelled call returns no
 * partial table (the error is the whole result).
 */
export function checkCancelled(signal: AbortSignal | undefined, phase: string): void {
  if (signal?.aborted === true) {
    throw new GfError('GF_CANCELLED', 'the diff was cancelled', { operation: 'diff_checkpoints', phase });
  }
}
