import diagnostics from 'node:diagnostics_channel';
import { GfError } from '../errors';
import type { DiffEndpoint, EndpointParticipant } from './endpoint';

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

/**
 * What the diff core asks its driver to do.
 *
 * The core is a generator of steps: `pause` is a cancellation point (before
 * each participant, every `CANCEL_CHECK_INTERVAL` records); `read` asks for
 * the verified bytes of one participant of one endpoint. The synchronous
 * driver checks the signal at a pause and reads with
 * `readParticipantBytes`; the asynchronous driver first yields to the
 * event loop (so a cancel sent by another request can land), then checks,
 * and reads with `readParticipantBytesAsync` when the endpoint has it.
 */
export type DiffEffect =
  | { readonly effect: 'pause'; readonly phase: 'participant' | 'records' }
  | { readonly effect: 'read'; readonly endpoint: DiffEndpoint; readonly entry: EndpointParticipant };

/** The pause step between records. */
export const PAUSE: DiffEffect = Object.freeze({ effect: 'pause', phase: 'records' });
/** The pause step before a participant. */
export const PARTICIPANT_PAUSE: DiffEffect = Object.freeze({ effect: 'pause', phase: 'participant' });

/** A diff computation as steps: yields effects, receives read bytes, returns `T`. */
export type DiffSteps<T> = Generator<DiffEffect, T, Uint8Array | undefined>;

/** True for a step value that is an effect (not a yielded result item). */
export function isEffect(v: object): v is DiffEffect {
  return 'effect' in v;
}

/** Runs diff steps synchronously: pauses only check `signal`. */
export function runSync<T>(steps: DiffSteps<T>, signal: AbortSignal | undefined): T {
  let r = steps.next();
  while (r.done !== true) {
    const e = r.value;
    if (e.effect === 'pause') {
      checkCancelled(signal, e.phase);
      r = steps.next();
    } else r = steps.next(e.endpoint.readParticipantBytes(e.entry));
  }
  return r.value;
}

/**
 * Diagnostics channel on which an async diff publishes `{ phase }` at each
 * pause, after yielding to the event loop and before checking its signal
 * (progress reporting, and tests that cancel "while it runs" without sleeping).
 */
export const DIFF_PROGRESS_CHANNEL = 'graphforge:diff:pause';
const progress = diagnostics.channel(DIFF_PROGRESS_CHANNEL);

/**
 * Runs diff steps cooperatively: at each pause it yields to the event
 * loop (`setImmediate`), then checks `signal`; reads go through
 * `readParticipantBytesAsync` (which pauses between chunks) when present.
 * A cancellation is `GF_CANCELLED` and nothing is returned.
 */
export async function runAsync<T>(steps: DiffSteps<T>, signal: AbortSignal | undefined): Promise<T> {
  const pause = async (phase: string): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (progress.hasSubscribers) progress.publish({ phase });
    checkCancelled(signal, phase);
  };
  try {
    let r = steps.next();
    while (r.done !== true) {
      const e = r.value;
      if (e.effect === 'pause') {
        await pause(e.phase);
        r = steps.next();
      } else {
        const read = e.endpoint.readParticipantBytesAsync;
        const bytes = read === undefined ? e.endpoint.readParticipantBytes(e.entry) : await read.call(e.endpoint, e.entry, () => pause('read'));
        r = steps.next(bytes);
      }
    }
    return r.value;
  } finally {
    steps.return(undefined as T);
  }
}
