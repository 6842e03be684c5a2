import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_PATCH_STEPS, DEMO_TAMPERED_WORKFLOW_ID, DEMO_WORKFLOWS, tamperDemoLedger, writeDemoLedgers } from '../../../../core/demo/demo-ledgers';
import { InMemoryChainStore } from '../../../../core/chain/memory/memory-store';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../../core/chain/verify';
import { collect } from '../chain/conformance/support';

const manifests = Array.from({ length: DEMO_PATCH_STEPS }, (_, i) => `${i.toString(16)}`.padStart(64, 'a'));

describe('demo ledgers', () => {
  it('scripts clean, retry-then-recovery, awaiting-review and failed workflows; patch steps cite their generation', async () => {
    const store = new InMemoryChainStore({ clock: () => new Date(0) });
    const links = await writeDemoLedgers(store, { manifestSha256: manifests });
    expect(await store.listWorkflows()).toEqual(DEMO_WORKFLOWS.map((w) => w.workflow_id).sort());
    const last = async (id: string): Promise<string | undefined> => (await collect(store.readAllForWorkflow(id))).at(-1)?.next_state_id;
    expect(await last('demo-clean-completion')).toBe('completed');
    expect(await last('demo-retry-recovery')).toBe('completed');
    expect((await collect(store.readAllForWorkflow('demo-retry-recovery'))).some((e) => e.next_state_id === 'gate_failed_retryable')).toBe(true);
    expect(await last('demo-awaiting-review')).toBe('awaiting_human_review');
    expect(await last('demo-failed')).toBe('failed_unrecoverable');
    expect(links.map((l) => l.evidence_digest)).toEqual(manifests.map((m) => `sha256:${m}`));
    for (const l of links) {
      const e = (await collect(store.readAllForWorkflow(l.workflow_id)))[l.sequence - 1];
      expect([e?.transition_id, e?.next_state_id, e?.triggering_outcome.evidence_digest]).toEqual([l.transition_id, 'patch_applied', l.evidence_digest]);
    }
    for (const w of DEMO_WORKFLOWS) expect((await verify(store, w.workflow_id)).status).toBe('ok');
  });

  it('is deterministic and rejects malformed manifest digests with GF_VALIDATION', async () => {
    const a = new InMemoryChainStore();
    const b = new InMemoryChainStore();
    await writeDemoLedgers(a, { manifestSha256: manifests.slice(0, 1) });
    await writeDemoLedgers(b, { manifestSha256: manifests.slice(0, 1) });
    for (const w of DEMO_WORKFLOWS) expect(await a.tailChainHead(w.workflow_id)).toBe(await b.tailChainHead(w.workflow_id));
    await expect(writeDemoLedgers(new InMemoryChainStore(), { manifestSha256: ['not-hex'] })).rejects.toMatchObject({ code: 'GF_VALIDATION' });
    await expect(writeDemoLedgers(new InMemoryChainStore(), { manifestSha256: [] })).rejects.toMatchObject({ code: 'GF_VALIDATION' });
  });

  it('tamperDemoLedger alters one persisted head of the tampered chain: tail unchanged, verify finds sequence 2', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gf-chain-demo-'));
    try {
      const store = new SqliteChainStore(root);
      await writeDemoLedgers(store, { manifestSha256: manifests });
      const tail = await store.tailChainHead(DEMO_TAMPERED_WORKFLOW_ID);
      await store.close();
      await tamperDemoLedger(root);
      const after = new SqliteChainStore(root);
      expect(await after.tailChainHead(DEMO_TAMPERED_WORKFLOW_ID)).toBe(tail);
      expect(await verify(after, DEMO_TAMPERED_WORKFLOW_ID)).toMatchObject({ status: 'chain_mismatch', first_bad_sequence: 2 });
      for (const w of DEMO_WORKFLOWS.filter((x) => x.workflow_id !== DEMO_TAMPERED_WORKFLOW_ID)) expect((await verify(after, w.workflow_id)).status).toBe('ok');
      await after.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
