import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENESIS } from '../../../../core/chain/head';
import { InMemoryChainStore } from '../../../../core/chain/memory/memory-store';
import type { ChainStoreWithReaders } from '../../../../core/chain/port';
import { runScript, scriptEvents, SCRIPTS, type ScriptName } from '../../../../core/chain/scenarios';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../../core/chain/verify';
import { collect } from './conformance/support';
import { expectGolden } from './golden';

const START = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));

async function goldenRows(store: ChainStoreWithReaders, script: ScriptName, workflowId: string): Promise<unknown> {
  const run = await runScript(store, workflowId, SCRIPTS[script], { start: START, seed: 42 });
  const rows = await collect(store.readPersistedRows(workflowId));
  expect(rows.map((r) => r.next_head)).toEqual(run.persisted.map((p) => p.head));
  expect(await verify(store, workflowId)).toMatchObject({ status: 'ok', rows: rows.length });
  return {
    scenario: script,
    workflow_id: workflowId,
    transitions: run.transitions,
    rows: rows.map((r) => ({ transition_id: r.transition_id, prior_head: r.prior_head, next_head: r.next_head })),
  };
}

const adapters: readonly [string, () => { store: ChainStoreWithReaders; dispose: () => void }][] = [
  ['in-memory', () => ({ store: new InMemoryChainStore({ clock: () => new Date(0) }), dispose: () => undefined })],
  [
    'sqlite',
    () => {
      const root = mkdtempSync(join(tmpdir(), 'gf-chain-golden-'));
      const store = new SqliteChainStore(root, { clock: () => new Date(Date.UTC(2026, 0, 1)) });
      return { store, dispose: () => rmSync(root, { recursive: true, force: true }) };
    },
  ],
];

describe('AC-9 golden ordering (seed scenarios), identical on every adapter', () => {
  for (const [name, make] of adapters) {
    it(`AC-9 clean completion: needs_plan → plan_ready → patch_applied → completed, three checkpoints in order (${name})`, async () => {
      const { store, dispose } = make();
      try {
        const g = (await goldenRows(store, 'clean_completion', 'wf-golden-clean')) as { rows: { prior_head: string }[] };
        expect(g.rows.length).toBe(3);
        expect(g.rows[0]?.prior_head).toBe(GENESIS);
        const states = (await collect(store.readAllForWorkflow('wf-golden-clean'))).map((e) => e.next_state_id);
        expect(states).toEqual(['plan_ready', 'patch_applied', 'completed']);
        expectGolden('golden-clean-completion', g);
      } finally {
        await store.close();
        dispose();
      }
    });

    it(`AC-9 retry then recovery: six transitions, the store sees only the five boundary events (${name})`, async () => {
      const { store, dispose } = make();
      try {
        const g = (await goldenRows(store, 'retry_then_recovery', 'wf-golden-retry')) as { transitions: number; rows: unknown[] };
        expect(g.transitions).toBe(6);
        expect(g.rows.length).toBe(5);
        const events = await collect(store.readAllForWorkflow('wf-golden-retry'));
        expect(events.map((e) => e.next_state_id)).toEqual(['patch_applied', 'gate_failed_retryable', 'plan_ready', 'patch_applied', 'completed']);
        expect(events.some((e) => e.next_state_id === 'needs_plan')).toBe(false);
        expectGolden('golden-retry-recovery', g);
      } finally {
        await store.close();
        dispose();
      }
    });
  }

  it('scripts are deterministic (same seed → same ids) and legal-edge checked', () => {
    const a = scriptEvents('wf', SCRIPTS.retry_then_recovery, { start: START, seed: 7 });
    const b = scriptEvents('wf', SCRIPTS.retry_then_recovery, { start: START, seed: 7 });
    const c = scriptEvents('wf', SCRIPTS.retry_then_recovery, { start: START, seed: 8 });
    expect(a).toEqual(b);
    expect(a.map((e) => e.transition_id)).not.toEqual(c.map((e) => e.transition_id));
  });
});
