/**
 * The LangGraph checkpointer port's own conformance suite (STYLE: one suite,
 * an initializer per adapter, one file per port operation, a meta-test).
 *
 * LangGraph's official validation suite checks the saver; this one checks
 * what the adapters add: one saver set up once, upstream errors untouched,
 * and the health translation.
 */
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { HEALTH_CASES } from './health.suite';
import { SAVER_CASES } from './saver.suite';
import type { CaseContext, CheckpointerPortInitializer, PortCase } from './types';

export { ConformanceFailure, type CheckpointerPortInitializer, type PortCase, type PortUnderTest } from './types';

/** Every case, in suite order. */
export const PORT_CASES: readonly PortCase[] = [...SAVER_CASES, ...HEALTH_CASES];

let threads = 0;

/** Runs one case against an initializer (the meta-test calls this directly). */
export async function runPortCase(init: CheckpointerPortInitializer, c: PortCase): Promise<void> {
  const ctx: CaseContext = { init, freshThread: (prefix = 't') => `${prefix}-${process.pid}-${(threads += 1)}` };
  try {
    await c.run(ctx);
  } finally {
    await init.destroy?.();
  }
}

/** Registers the suite for one adapter. */
export function runPortConformance(init: CheckpointerPortInitializer): void {
  describe(`LangGraphCheckpointerPort conformance: ${init.name}`, () => {
    beforeAll(async () => init.beforeAll?.(), 120_000);
    afterAll(async () => init.afterAll?.());
    afterEach(async () => init.destroy?.());
    for (const c of PORT_CASES) it(`${c.id}: ${c.title}`, () => c.run({ init, freshThread: (prefix = 't') => `${prefix}-${process.pid}-${(threads += 1)}` }));
  });
}
