/**
 * The port conformance suite is itself mutation-tested (STYLE).
 *
 * For every case, an adapter with one deliberate defect (the SQLite adapter
 * with one behaviour replaced) is fed to the case; it must fail with a
 * ConformanceFailure naming that case's invariant. The same case passes on
 * the correct adapter (control), so the failure is the defect's doing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { checkpointerHealth, SqliteCheckpointerAdapter, type CheckpointerHealth, type LangGraphCheckpointerPort } from '../../../../core/langgraph';
import { ConformanceFailure, PORT_CASES, runPortCase, type CheckpointerPortInitializer } from './conformance';
import { sqliteInitializer } from './conformance/sqlite-initializer';

interface Defect {
  /** Replaces parts of a correct adapter (built on `path`). */
  patch(adapter: SqliteCheckpointerAdapter, path: string, closers: (() => void)[]): Partial<LangGraphCheckpointerPort>;
}

/** A deliberate defect per case id. */
const DEFECTS: Readonly<Record<string, Defect>> = {
  'saver.same_object': {
    patch: (_a, path, closers) => ({
      saver: async () => {
        const s = SqliteSaver.fromConnString(path);
        closers.push(() => s.db.close());
        return s;
      },
    }),
  },
  'saver.round_trip': {
    // Every adapter on its own private in-memory database.
    patch: (_a, _path, closers) => {
      const s = SqliteSaver.fromConnString(':memory:');
      closers.push(() => s.db.close());
      return { saver: async () => s };
    },
  },
  'saver.errors_unwrapped': {
    patch: (adapter) => ({
      saver: async () => {
        const s = await adapter.saver();
        const put = s.put.bind(s);
        return Object.assign(Object.create(s) as BaseCheckpointSaver, {
          put: (...args: Parameters<typeof put>) =>
            put(...args).catch((e: unknown) => {
              throw new Error('checkpoint write failed', { cause: e });
            }),
        });
      },
    }),
  },
  'health.shape': {
    patch: (adapter) => ({ health: () => ({ ...adapter.health(), pool_waiting: 0 }) as CheckpointerHealth }),
  },
  'health.pool_counters': {
    patch: (adapter) => ({ health: () => checkpointerHealth(adapter.health().pool_idle, adapter.health().pool_idle, adapter.health().last_write_age_seconds) }),
  },
  'health.never_written': {
    patch: (adapter) => ({ health: () => checkpointerHealth(adapter.health().pool_in_use, adapter.health().pool_idle, Math.min(adapter.health().last_write_age_seconds, 0)) }),
  },
  'health.write_age': {
    patch: (adapter) => ({ health: () => checkpointerHealth(adapter.health().pool_in_use, adapter.health().pool_idle, Number.POSITIVE_INFINITY) }),
  },
};

function brokenInitializer(defect: Defect): CheckpointerPortInitializer {
  let dir: string | undefined;
  let closers: (() => void)[] = [];
  const path = (): string => join(dir ?? '', 'threads.sqlite');
  return {
    name: 'broken SqliteCheckpointerAdapter',
    async beforeAll() {
      dir = mkdtempSync(join(tmpdir(), 'gf-lg-meta-'));
    },
    async afterAll() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
    async create() {
      const inner = new SqliteCheckpointerAdapter({ path: path() });
      closers.push(() => void inner.close());
      const patch = defect.patch(inner, path(), closers);
      const adapter: LangGraphCheckpointerPort = { saver: patch.saver ?? (() => inner.saver()), health: patch.health ?? (() => inner.health()) };
      let db: { readonly open: boolean } | undefined;
      void inner.saver().then((s) => (db = s.db), () => undefined);
      return { adapter, poolTotal: () => (db?.open === true ? 1 : 0), checkedOut: () => 0, poolIdle: () => (db?.open === true ? 1 : 0), pooled: false };
    },
    async bare() {
      const s = SqliteSaver.fromConnString(path());
      closers.push(() => s.db.close());
      return s;
    },
    async destroy() {
      const c = closers;
      closers = [];
      for (const close of c) close();
    },
  };
}

describe('LangGraph port conformance meta-test', () => {
  it('every case has a defect', () => {
    expect(Object.keys(DEFECTS).sort()).toEqual(PORT_CASES.map((c) => c.id).sort());
  });

  it.each(PORT_CASES.map((c) => [c.id, c] as const))('%s fails on its defect and passes on the correct adapter', async (id, c) => {
    const broken = brokenInitializer(DEFECTS[id] as Defect);
    await broken.beforeAll?.();
    try {
      const failure = await runPortCase(broken, c).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(ConformanceFailure);
      expect((failure as ConformanceFailure).invariant).toBe(id);
    } finally {
      await broken.afterAll?.();
    }
    const control = sqliteInitializer();
    await control.beforeAll?.();
    try {
      await runPortCase(control, c);
    } finally {
      await control.afterAll?.();
    }
  });
});
