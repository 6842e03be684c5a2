import { isChainHead } from '../chain/head';
import type { ChainStore } from '../chain/port';
import { runScript, SCRIPTS, type ScriptName } from '../chain/scenarios';
import { SqliteChainStore } from '../chain/sqlite/sqlite-store';
import { tamperSqliteRow } from '../chain/sqlite/sqlite-tamper';
import { GfError } from '../errors';

/** The demo workspace's scripted workflows, in the order they ran. */
export const DEMO_WORKFLOWS = Object.freeze([
  { workflow_id: 'demo-clean-completion', script: 'clean_completion' },
  { workflow_id: 'demo-retry-recovery', script: 'retry_then_recovery' },
  { workflow_id: 'demo-awaiting-review', script: 'awaiting_human_review' },
  { workflow_id: 'demo-failed', script: 'failed' },
  { workflow_id: 'demo-tampered', script: 'clean_completion' },
] as const satisfies readonly { readonly workflow_id: string; readonly script: ScriptName }[]);

/** The workflow whose chain `tamperDemoLedger` alters. */
export const DEMO_TAMPERED_WORKFLOW_ID = 'demo-tampered';

/** The number of `patch_applied` steps across the demo workflows (one published generation each). */
export const DEMO_PATCH_STEPS = DEMO_WORKFLOWS.reduce((n, w) => n + SCRIPTS[w.script].filter((s) => s.to === 'patch_applied').length, 0);

/** Input of `writeDemoLedgers`. */
export interface DemoLedgerSteps {
  /**
   * Manifest sha256 (64 lowercase hex) of each generation the scripted steps published, in order.
   *
   * Consumed one per `patch_applied` step across `DEMO_WORKFLOWS`, cycling if
   * fewer are given (at least one is required).
   */
  readonly manifestSha256: readonly string[];
  /** Time of the first transition (default 2026-01-05T09:00Z); later ones follow by minutes. */
  readonly start?: Date;
}

/** Which transition references which generation. */
export interface DemoLedgerLink {
  readonly workflow_id: string;
  readonly transition_id: string;
  readonly sequence: number;
  readonly evidence_digest: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Writes the demo workflows' ledgers into `store` (deterministic ids and times).
 *
 * Each `patch_applied` event's `evidence_digest` is `sha256:<manifest sha256>`
 * of the generation that step published, so the app can show which
 * transition produced which generation. Returns those links.
 */
export async function writeDemoLedgers(store: ChainStore, steps: DemoLedgerSteps): Promise<readonly DemoLedgerLink[]> {
  if (steps.manifestSha256.length === 0 || !steps.manifestSha256.every((d) => SHA256_HEX.test(d))) {
    throw new GfError('GF_VALIDATION', 'demo ledgers need at least one manifest sha256 (64 lowercase hex)');
  }
  const start = steps.start ?? new Date(Date.UTC(2026, 0, 5, 9, 0, 0));
  const links: DemoLedgerLink[] = [];
  let patch = 0;
  for (const [w, wf] of DEMO_WORKFLOWS.entries()) {
    const digests = new Map<number, string>();
    const run = await runScript(store, wf.workflow_id, SCRIPTS[wf.script], {
      start: new Date(start.getTime() + w * 3_600_000),
      seed: 0x5eed + w,
      evidence: (i, step) => {
        if (step.to !== 'patch_applied') return null;
        const d = `sha256:${steps.manifestSha256[patch % steps.manifestSha256.length] as string}`;
        patch += 1;
        digests.set(i, d);
        return d;
      },
    });
    run.persisted.forEach((p, seq) => {
      const d = digests.get(p.index);
      if (d !== undefined) links.push({ workflow_id: wf.workflow_id, transition_id: p.event.transition_id, sequence: seq + 1, evidence_digest: d });
    });
  }
  return links;
}

/**
 * Alters one persisted head of the demo's tampered chain in a SQLite chain root.
 *
 * Row 2's `next_head` gets one hex digit changed (still well-formed), so
 * `tailChainHead` is unaffected and only `verify` finds it: `chain_mismatch`
 * at sequence 2.
 */
export async function tamperDemoLedger(chainRoot: string, workflowId: string = DEMO_TAMPERED_WORKFLOW_ID): Promise<void> {
  const store = new SqliteChainStore(chainRoot);
  let head: string | undefined;
  try {
    let seq = 0;
    for await (const row of store.readPersistedRows(workflowId)) if ((seq += 1) === 2) head = row.next_head;
  } finally {
    await store.close();
  }
  if (head === undefined || !isChainHead(head)) throw new GfError('GF_VALIDATION', 'the demo ledger to tamper has no second row');
  tamperSqliteRow(chainRoot, workflowId, 2, { next_head: `${head.slice(0, -1)}${head.endsWith('0') ? '1' : '0'}` });
}
