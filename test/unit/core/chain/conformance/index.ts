import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ChainStoreWithReaders } from '../../../../../core/chain/port';
import { APPEND_CASES } from './append.suite';
import { CLOSE_CASES } from './close.suite';
import { LIST_CASES } from './list-workflows.suite';
import { LOCK_CASES } from './lock.suite';
import { READ_ALL_CASES } from './read-all-for-workflow.suite';
import { PERSISTED_ROWS_CASES } from './read-persisted-rows.suite';
import { runConformanceCase } from './support';
import { TAIL_CASES } from './tail-chain-head.suite';
import type { ChainConformanceInitializer, ConformanceCase } from './types';

export { runConformanceCase } from './support';
export type { ChainConformanceInitializer, ConformanceCase, TamperFields } from './types';
export { ConformanceFailure } from './types';

/** Every conformance case, grouped by port operation. */
export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  ...APPEND_CASES,
  ...READ_ALL_CASES,
  ...TAIL_CASES,
  ...LOCK_CASES,
  ...CLOSE_CASES,
  ...LIST_CASES,
  ...PERSISTED_ROWS_CASES,
];

/**
 * Registers the whole conformance suite for one adapter with vitest.
 *
 * An adapter's runner is three lines: import this and its initializer, call it.
 */
export function runChainConformance<S extends ChainStoreWithReaders>(init: ChainConformanceInitializer<S>): void {
  describe(`chain store conformance: ${init.name}`, () => {
    beforeAll(async () => init.beforeAll?.());
    afterAll(async () => init.afterAll?.());
    for (const c of CONFORMANCE_CASES) {
      const gap = init.knownGaps?.[c.id];
      const title = `${c.operation}: ${c.invariant}`;
      // A known gap still runs and must fail: it turns red when fixed (drop the gap) or when it starts passing by accident.
      if (gap !== undefined) it.fails(`${title} — known gap: ${gap}`, async () => runConformanceCase(init, c));
      else it(title, async () => runConformanceCase(init, c));
    }
  });
}
