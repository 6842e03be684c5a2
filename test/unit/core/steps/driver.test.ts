import { describe, expect, it } from 'vitest';
import { StepBudget, pausesFor, runSteps, runStepsAsync } from '../../../../core/steps/driver';
import type { Steps } from '../../../../core/steps/driver';

type Effect = { readonly op: 'add'; readonly n: number } | { readonly op: 'fail' };

/** Adds what each effect returns; records how it ended. */
function* adder(effects: readonly Effect[], log: string[]): Steps<Effect, number, number> {
  let sum = 0;
  try {
    for (const e of effects) sum += yield e;
    log.push('done');
    return sum;
  } catch (e) {
    log.push(`caught ${(e as Error).message}`);
    throw e;
  } finally {
    log.push('finally');
  }
}

function perform(e: Effect): number {
  if (e.op === 'fail') throw new Error('boom');
  return e.n;
}

describe('runSteps / runStepsAsync', () => {
  it('feeds each outcome back and returns the result, synchronously and asynchronously', async () => {
    const log: string[] = [];
    expect(runSteps(adder([{ op: 'add', n: 2 }, { op: 'add', n: 3 }], log), perform)).toBe(5);
    expect(await runStepsAsync(adder([{ op: 'add', n: 2 }, { op: 'add', n: 3 }], log), async (e) => perform(e))).toBe(5);
    expect(log).toEqual(['done', 'finally', 'done', 'finally']);
  });

  it('throws a failed effect into the steps at their yield (their catch and finally see it)', async () => {
    const log: string[] = [];
    expect(() => runSteps(adder([{ op: 'add', n: 1 }, { op: 'fail' }, { op: 'add', n: 1 }], log), perform)).toThrow('boom');
    await expect(runStepsAsync(adder([{ op: 'fail' }], log), (e) => Promise.resolve().then(() => perform(e)))).rejects.toThrow('boom');
    expect(log).toEqual(['caught boom', 'finally', 'caught boom', 'finally']);
  });

  it('lets the steps recover from a failed effect and carry on', () => {
    function* retry(): Steps<Effect, string, number> {
      try {
        yield { op: 'fail' };
      } catch {
        const n = yield { op: 'add', n: 7 };
        return `recovered ${n}`;
      }
      return 'not reached';
    }
    expect(runSteps(retry(), perform)).toBe('recovered 7');
  });

  it('continues an effect performed without a promise at once (no turn of the event loop)', async () => {
    const order: string[] = [];
    const run = runStepsAsync(adder([{ op: 'add', n: 1 }], []), (e) => {
      order.push('performed');
      return perform(e);
    }).then(() => order.push('resolved'));
    order.push('returned');
    await run;
    // All the steps ran before runStepsAsync returned its promise.
    expect(order).toEqual(['performed', 'returned', 'resolved']);
  });
});

describe('pausesFor', () => {
  it('throws the cancellation error at the first pause after the abort, and the steps finish their finally', async () => {
    const ac = new AbortController();
    const seen: string[] = [];
    const pauses = pausesFor(ac.signal, (phase: 'chunk') => new Error(`cancelled at ${phase}`), (phase) => seen.push(phase));
    const log: string[] = [];
    function* chunks(): Steps<'chunk', number> {
      let n = 0;
      try {
        for (;;) {
          yield 'chunk';
          n++;
          if (n === 2) ac.abort();
        }
      } finally {
        log.push(`closed after ${n}`);
      }
    }
    await expect(runStepsAsync(chunks(), (p) => pauses.pause(p))).rejects.toThrow('cancelled at chunk');
    expect(log).toEqual(['closed after 2']);
    expect(seen).toEqual(['chunk', 'chunk', 'chunk']);
    expect(() => pauses.check('chunk')).toThrow('cancelled at chunk');
    expect(() => pausesFor(undefined, () => new Error('x')).check('chunk')).not.toThrow();
  });
});

describe('StepBudget', () => {
  it('says a pause is due each time `every` units were spent', () => {
    const b = new StepBudget(10);
    expect([4, 5, 1, 9, 3, 20].map((n) => b.spend(n))).toEqual([false, false, true, false, true, true]);
    expect(() => new StepBudget(0)).toThrow(RangeError);
  });
});
