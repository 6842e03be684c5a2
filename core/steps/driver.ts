/**
 * The one step driver: work written once as a generator of steps, run
 * synchronously or asynchronously.
 *
 * A computation that touches the file system, may wait, or must stop on
 * cancellation is written as a generator that yields *effects* (a batch of
 * flushes, a pause point, a participant to open) and receives each
 * effect's outcome. The caller picks a driver and says how one effect is
 * performed; the generator holds the protocol, its failpoints and its
 * error handling in one place, whichever driver runs it:
 * - `runSteps` performs every effect synchronously (callers that must stay
 *   synchronous; a pause is only a check);
 * - `runStepsAsync` accepts an effect performed by a promise (a batch of
 *   fsyncs on the libuv pool, a turn of the event loop, another request's
 *   work) and awaits it; an effect performed without a promise continues
 *   at once, with no extra turn.
 *
 * Both drivers have the same failure rule: an effect that fails (an I/O
 * error, a cancellation thrown by a pause) is thrown into the generator at
 * its `yield`, so its `catch` and `finally` blocks see it and release what
 * they hold; and a generator left unfinished for any reason is returned,
 * so its `finally` blocks always run. Used by core/project (flush
 * protocol, verified reads) and core/diff (cancellable diff steps).
 */

/** Work as steps: yields effects `E`, receives each effect's outcome `In`, returns `R`. */
export type Steps<E, R, In = void> = Generator<E, R, In>;

function isPromiseLike<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

type Resumed<E, R> = IteratorResult<E, R>;

/**
 * Performs one effect and resumes the steps with its outcome, or throws its
 * failure into them. With `awaitOutcome`, an outcome that is a promise is
 * settled first (the resumed step is then returned as a promise).
 */
function resume<E, R, In>(steps: Steps<E, R, In>, perform: (effect: E) => In | PromiseLike<In>, effect: E, awaitOutcome: boolean): Resumed<E, R> | PromiseLike<Resumed<E, R>> {
  let outcome: In | PromiseLike<In>;
  try {
    outcome = perform(effect);
  } catch (e) {
    return steps.throw(e);
  }
  if (awaitOutcome && isPromiseLike(outcome)) return outcome.then((v) => steps.next(v), (e: unknown) => steps.throw(e));
  return steps.next(outcome as In);
}

/** The first step of `steps` (a generator's first `next` takes no value). */
function start<E, R, In>(steps: Steps<E, R, In>): Resumed<E, R> {
  return steps.next(...([] as unknown as [In]));
}

/**
 * Runs `steps` to the end, performing each effect synchronously with
 * `perform`; an effect that throws is thrown into the steps.
 */
export function runSteps<E, R, In>(steps: Steps<E, R, In>, perform: (effect: E) => In): R {
  try {
    let r = start(steps);
    while (r.done !== true) r = resume(steps, perform, r.value, false) as Resumed<E, R>;
    return r.value;
  } finally {
    steps.return(undefined as R);
  }
}

/**
 * Runs `steps` to the end, awaiting each effect `perform` returns as a
 * promise (an effect performed synchronously continues without a turn of
 * the event loop); an effect that throws or rejects is thrown into the steps.
 */
export async function runStepsAsync<E, R, In>(steps: Steps<E, R, In>, perform: (effect: E) => In | PromiseLike<In>): Promise<R> {
  try {
    let r = start(steps);
    while (r.done !== true) {
      const next = resume(steps, perform, r.value, true);
      r = isPromiseLike(next) ? await next : next;
    }
    return r.value;
  } finally {
    steps.return(undefined as R);
  }
}

/** One turn of the event loop (`setImmediate`): I/O callbacks and other requests (a cancel) run before it resolves. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The pause points of one run that honours an `AbortSignal`.
 *
 * A cancelled run throws at its next pause (the driver throws the error
 * into the steps, whose `finally` blocks release what they hold), so a
 * caller gets the cancellation error and no partial result.
 */
export interface Pauses<P extends string> {
  /** The synchronous pause: throws `cancelled(phase)` once the signal is aborted. */
  check(phase: P): void;
  /** The cooperative pause: one turn of the event loop (a cancel sent by another request can land), `onPause`, then `check`. */
  pause(phase: P): Promise<void>;
}

/** Pause points for `signal`; `cancelled` makes the error a cancelled run throws, `onPause` reports progress. */
export function pausesFor<P extends string>(signal: AbortSignal | undefined, cancelled: (phase: P) => Error, onPause?: (phase: P) => void): Pauses<P> {
  const check = (phase: P): void => {
    if (signal?.aborted === true) throw cancelled(phase);
  };
  return {
    check,
    async pause(phase) {
      await nextTurn();
      onPause?.(phase);
      check(phase);
    },
  };
}

/**
 * A yielding budget: counts work done since the last pause point and says
 * when the next one is due (`spend(n)` is true once `every` units were
 * spent; the count then starts again).
 */
export class StepBudget {
  readonly #every: number;
  #spent = 0;

  constructor(every: number) {
    if (!(every > 0)) throw new RangeError('a step budget spends at least one unit between pauses');
    this.#every = every;
  }

  /** Spends `n` units; true when a pause is due now. */
  spend(n: number): boolean {
    this.#spent += n;
    if (this.#spent < this.#every) return false;
    this.#spent = 0;
    return true;
  }
}
