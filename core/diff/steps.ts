// The engine's effect vocabulary (pause, read, await) and its two drivers: runSync for
// pure callers, runAsync that yields to the event loop so a cancel lands.
import diagnostics from 'node:diagnostics_channel';
import { GfError } from '../errors';
import { DIFF_PROGRESS_CHANNEL } from '../contract/diff';
import { verifiedBytes } from '../project/index';
import { pausesFor, runSteps, runStepsAsync } from '../steps/driver';
import type { Steps } from '../steps/driver';
import type { DiffEndpoint, EndpointParticipant, ParticipantSource } from './plan-endpoint';

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
  if (signal?.aborted === true) throw cancelled(phase);
}

function cancelled(phase: string): GfError {
  return new GfError('GF_CANCELLED', 'the diff was cancelled', { operation: 'diff_checkpoints', phase });
}

/**
 * What the diff core asks its driver to do.
 *
 * The core is a generator of steps (run by the one step driver,
 * core/steps/driver.ts): `pause` is a cancellation point (before
 * each participant, every `CANCEL_CHECK_INTERVAL` records); `read` asks for
 * one participant of one endpoint as a verified `ParticipantSource`. The
 * synchronous driver checks the signal at a pause and opens with
 * `openParticipant` (or reads the whole bytes with `readParticipantBytes`);
 * the asynchronous driver first yields to the event loop (so a cancel sent
 * by another request can land), then checks, and prefers the cooperative
 * `openParticipantAsync` / `readParticipantBytesAsync`. `await` waits for
 * work done elsewhere (deferred digests); only the asynchronous driver
 * accepts it. Every source a driver hands out is closed when the steps
 * end, however they end.
 */
export type DiffEffect =
  | { readonly effect: 'pause'; readonly phase: 'participant' | 'records' | 'index' }
  | { readonly effect: 'read'; readonly endpoint: DiffEndpoint; readonly entry: EndpointParticipant }
  | { readonly effect: 'await'; readonly promise: Promise<void> };

/** The pause step between records. */
export const PAUSE: DiffEffect = Object.freeze({ effect: 'pause', phase: 'records' });
/** The pause step before a participant. */
export const PARTICIPANT_PAUSE: DiffEffect = Object.freeze({ effect: 'pause', phase: 'participant' });
/** The pause between windows of a record index build (a progress line names it). */
export const INDEX_PAUSE: DiffEffect = Object.freeze({ effect: 'pause', phase: 'index' });

/** A diff computation as steps: yields effects, receives opened participants, returns `T`. */
export type DiffSteps<T> = Steps<DiffEffect, T, ParticipantSource | undefined>;

function openSync(e: DiffEndpoint, entry: EndpointParticipant): ParticipantSource {
  return e.openParticipant === undefined ? verifiedBytes(e.readParticipantBytes(entry)) : e.openParticipant(entry);
}

async function openAsync(e: DiffEndpoint, entry: EndpointParticipant, pause: () => Promise<void>): Promise<ParticipantSource> {
  if (e.openParticipantAsync !== undefined) return e.openParticipantAsync(entry, pause);
  if (e.openParticipant !== undefined) return e.openParticipant(entry);
  if (e.readParticipantBytesAsync !== undefined) return verifiedBytes(await e.readParticipantBytesAsync(entry, pause));
  return verifiedBytes(e.readParticipantBytes(entry));
}

function closeAll(sources: readonly ParticipantSource[]): void {
  for (const s of sources) s.close();
}

/** True for a step value that is an effect (not a yielded result item). */
export function isEffect(v: object): v is DiffEffect {
  return 'effect' in v;
}

/** Runs diff steps synchronously: pauses only check `signal`. */
export function runSync<T>(steps: DiffSteps<T>, signal: AbortSignal | undefined): T {
  const opened: ParticipantSource[] = [];
  try {
    return runSteps(steps, (e): ParticipantSource | undefined => {
      if (e.effect === 'pause') {
        checkCancelled(signal, e.phase);
        return undefined;
      }
      if (e.effect === 'await') throw new Error('invariant violated: the synchronous diff driver cannot wait (deferred work is for runAsync only)');
      const source = openSync(e.endpoint, e.entry);
      opened.push(source);
      return source;
    });
  } finally {
    closeAll(opened);
  }
}

/**
 * Diagnostics channel on which an async diff publishes `{ phase }` at each
 * pause, after yielding to the event loop and before checking its signal
 * (progress reporting, and tests that cancel "while it runs" without sleeping).
 */
export { DIFF_PROGRESS_CHANNEL };
const progress = diagnostics.channel(DIFF_PROGRESS_CHANNEL);

function publishProgress(phase: string): void {
  if (progress.hasSubscribers) progress.publish({ phase });
}

/**
 * Runs diff steps cooperatively: at each pause it yields to the event
 * loop (`setImmediate`), then checks `signal`; participants are opened
 * with `openParticipantAsync` (which pauses between verified chunks) when
 * present.
 * A cancellation is `GF_CANCELLED` and nothing is returned.
 */
export async function runAsync<T>(steps: DiffSteps<T>, signal: AbortSignal | undefined): Promise<T> {
  const { pause } = pausesFor(signal, cancelled, publishProgress);
  const opened: ParticipantSource[] = [];
  const open = async (e: DiffEndpoint, entry: EndpointParticipant): Promise<ParticipantSource> => {
    const source = await openAsync(e, entry, () => pause('read'));
    opened.push(source);
    return source;
  };
  try {
    return await runStepsAsync(steps, (e): Promise<ParticipantSource | undefined> => {
      if (e.effect === 'pause') return pause(e.phase).then(() => undefined);
      if (e.effect === 'await') return e.promise.then(() => undefined);
      return open(e.endpoint, e.entry);
    });
  } finally {
    closeAll(opened);
  }
}
