/**
 * Runs LangGraph's official checkpointer conformance suite
 * (`@langchain/langgraph-checkpoint-validation`) inside the project's vitest run.
 *
 * Upstream's spec files use vitest's globals (`describe`, `it`, `expect`, …)
 * and its CLI does not load here, so `runValidation` installs the globals
 * this file needs and calls upstream `validate()`. Known upstream failures
 * are data: each is listed by test name with its reason and registered as
 * `it.fails`, so the case still runs and the run turns red the day upstream
 * fixes it (or the day an adapter starts failing anything else).
 */
import * as vitest from 'vitest';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { validate, type CheckpointSaverTestInitializer } from '@langchain/langgraph-checkpoint-validation';

/** Test name (as upstream spells it) → why upstream fails it. */
export type KnownUpstreamFailures = Readonly<Record<string, string>>;

/**
 * Upstream `SqliteSaver` 1.0.4 fails this case of the pinned validation suite.
 *
 * Upstream's own suite skips it for `@langchain/langgraph-checkpoint-sqlite`
 * with the reason quoted here; we run it under our own name and expect the failure.
 */
export const SQLITE_KNOWN_FAILURES: KnownUpstreamFailures = {
  'should only store channel_values that have changed (based on newVersions)':
    "SqliteSaver stores every channel value on each put, not only those in newVersions (upstream: \"TODO: SQLiteSaver doesn't store channel deltas\")",
};

function itWithKnownFailures(known: KnownUpstreamFailures): typeof vitest.it {
  const wrapped = (name: string, fn?: vitest.TestFunction, timeout?: number): void => {
    const reason = known[name];
    if (reason === undefined) vitest.it(name, fn, timeout);
    else vitest.it.fails(`${name} [known upstream failure: ${reason}]`, fn, timeout);
  };
  return Object.assign(wrapped, { each: vitest.it.each.bind(vitest.it), skip: vitest.it.skip }) as unknown as typeof vitest.it;
}

/** Registers the official suite for one initializer, with the known upstream failures expected. */
export function runValidation<S extends BaseCheckpointSaver>(initializer: CheckpointSaverTestInitializer<S>, known: KnownUpstreamFailures = {}): void {
  Object.assign(globalThis, {
    describe: vitest.describe,
    it: itWithKnownFailures(known),
    test: vitest.test,
    expect: vitest.expect,
    beforeAll: vitest.beforeAll,
    afterAll: vitest.afterAll,
    beforeEach: vitest.beforeEach,
    afterEach: vitest.afterEach,
    vi: vitest.vi,
  });
  validate(initializer);
}
