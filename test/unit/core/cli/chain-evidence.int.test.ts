// Ledger evidence names the generation a step published (`sha256:<manifest>`);
// chain events carry no actor, so who published that generation comes from the
// workspace's lineage log, resolved to a name as the app's History does. Checked
// on the engine (`chain.read` / `chain.rows` through the dispatcher) and on
// `gf chain show` (text, --json, --csv), over a real workspace, real SQLite
// ledgers written by the real chain store and a real actors.json.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActorStore, derivedActorUuid } from '../../../../core/actor/actor-store';
import { createFacade } from '../../../../core/api/facade';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { runScript, SCRIPTS } from '../../../../core/chain/scenarios';
import { NO_LINEAGE, NO_LINKED_GENERATION, type EvidenceGeneration } from '../../../../core/contract/chain';
import type { HistoryPage } from '../../../../core/contract/history';
import { unwrapEnvelope, type Envelope } from '../../../../core/contract/wire';
import { gf } from '../../../support/cli-run';
import { workspace, type Workspace } from '../checkpoints/checkpoint-support';

const config = mkdtempSync(join(tmpdir(), 'gf-chain-evidence-config-'));
const saved = { dir: process.env['GF_CONFIG_DIR'], actor: process.env['GF_ACTOR'] };
const STRANGER = '018f0f4e-7b8c-7000-8000-0000000035cb';
const ELSEWHERE = `sha256:${'e'.repeat(64)}`;
const OPAQUE = `blake3:${'b'.repeat(64)}`;

let ws: Workspace;
let self: string;
/** Generation UUID and manifest of each publication, by who published it. */
let gens: Record<'ada' | 'self' | 'stranger' | 'nobody', { generation_uuid: string; manifest_sha256: string; seq: number }>;

/** One clean-completion workflow whose `patch_applied` step records `evidence`. */
async function ledger(store: SqliteChainStore, workflow: string, evidence: string, seed: number): Promise<void> {
  await runScript(store, workflow, SCRIPTS.clean_completion, { start: new Date(Date.UTC(2026, 0, 5, 9)), seed, evidence: (_i, step) => (step.to === 'patch_applied' ? evidence : null) });
}

beforeAll(async () => {
  process.env['GF_CONFIG_DIR'] = config;
  delete process.env['GF_ACTOR'];
  self = new ActorStore(config).rename('Margaret Hamilton').actor_uuid;
  ws = await workspace();
  await ws.publish('a', 2);
  await ws.cps.checkpoint({ name: 'one', idempotencyKey: '018f0f4e-7b8c-7000-8000-0000000035d1' });
  for (const actor of ['Ada Lovelace', self, STRANGER]) {
    expect((await gf('checkpoint', 'revert', 'one', '--project', ws.dir, '--reason', `by ${actor}`, '--actor', actor)).code).toBe(0);
  }
  const log = (JSON.parse((await gf('log', '--project', ws.dir, '--json')).out) as HistoryPage).entries;
  const by = (actor: string | null) => {
    const e = log.find((x) => x.actor === actor)!;
    return { generation_uuid: e.generation_uuid, manifest_sha256: e.manifest_sha256, seq: e.seq };
  };
  gens = { ada: by(derivedActorUuid('Ada Lovelace')), self: by(self), stranger: by(STRANGER), nobody: by(null) };
  const store = new SqliteChainStore(join(ws.dir, 'chain'));
  try {
    await ledger(store, 'by-ada', `sha256:${gens.ada.manifest_sha256}`, 1);
    await ledger(store, 'by-self', `sha256:${gens.self.manifest_sha256}`, 2);
    await ledger(store, 'by-stranger', `sha256:${gens.stranger.manifest_sha256}`, 3);
    await ledger(store, 'by-nobody', `sha256:${gens.nobody.manifest_sha256}`, 4);
    await ledger(store, 'elsewhere', ELSEWHERE, 5);
    await ledger(store, 'opaque', OPAQUE, 6);
  } finally {
    await store.close();
  }
});

afterAll(() => {
  ws?.close();
  if (saved.dir === undefined) delete process.env['GF_CONFIG_DIR'];
  else process.env['GF_CONFIG_DIR'] = saved.dir;
  if (saved.actor !== undefined) process.env['GF_ACTOR'] = saved.actor;
  rmSync(config, { recursive: true, force: true });
});

describe('ledger evidence: the linked generation and who published it', () => {
  it('chain.read and chain.rows link each manifest digest to the earliest generation with it and its lineage actor; a manifest the workspace lacks links to none; opaque evidence is not listed', async () => {
    const facade = createFacade({ mode: 'library', configDir: config });
    try {
      const call = async <T>(op: string, request: object): Promise<T> => unwrapEnvelope((await facade.dispatcher.dispatch(op as never, request)) as Envelope<T>);
      const { project } = await call<{ project: string }>('project.open', { path: ws.dir });
      const read = (workflow_id: string) => call<{ evidence_generations: EvidenceGeneration[] | null }>('chain.read', { project, workflow_id });
      const linked = (g: { generation_uuid: string; seq: number }, actor: string | null) => [{ evidence_digest: expect.stringMatching(/^sha256:/), generation: { generation_uuid: g.generation_uuid, seq: g.seq, published_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\.\d{6}Z$/), actor } }];
      expect((await read('by-ada')).evidence_generations).toEqual(linked(gens.ada, derivedActorUuid('Ada Lovelace')));
      expect((await read('by-self')).evidence_generations).toEqual(linked(gens.self, self));
      expect((await read('by-nobody')).evidence_generations).toEqual(linked(gens.nobody, null));
      expect((await read('elsewhere')).evidence_generations).toEqual([{ evidence_digest: ELSEWHERE, generation: null }]);
      expect((await read('opaque')).evidence_generations).toEqual([]);
      const rows = await call<{ evidence_generations: EvidenceGeneration[] | null }>('chain.rows', { project, workflow_id: 'by-stranger' });
      expect(rows.evidence_generations).toEqual(linked(gens.stranger, STRANGER));
      // The same ledgers opened as a directory of ledgers (`chain.open`, as gf chain does) still find the workspace's lineage.
      const opened = await call<{ project: string }>('chain.open', { path: ws.dir });
      expect((await call<{ evidence_generations: EvidenceGeneration[] | null }>('chain.read', { project: opened.project, workflow_id: 'by-ada' })).evidence_generations).toEqual(linked(gens.ada, derivedActorUuid('Ada Lovelace')));
    } finally {
      await facade.close();
    }
  });

  it('gf chain show names the publisher of the linked generation as the app does (a short id for an actor never seen), says where the workspace has no such generation, and --json / --csv carry both UUID and name', async () => {
    const show = async (workflow: string, ...flags: string[]) => gf('chain', 'show', workflow, '--project', ws.dir, ...flags);
    const evidenceLine = async (workflow: string): Promise<string | undefined> => (await show(workflow)).out.split('\n').find((l) => l.trimStart().startsWith('evidence'))?.trim();
    expect(await evidenceLine('by-ada')).toBe(`evidence: generation ${gens.ada.generation_uuid.slice(0, 8)}, published by Ada Lovelace`);
    expect(await evidenceLine('by-self')).toBe(`evidence: generation ${gens.self.generation_uuid.slice(0, 8)}, published by Margaret Hamilton`);
    expect(await evidenceLine('by-stranger')).toBe(`evidence: generation ${gens.stranger.generation_uuid.slice(0, 8)}, published by ${STRANGER.slice(0, 8)}`);
    expect(await evidenceLine('by-nobody')).toBe(`evidence: generation ${gens.nobody.generation_uuid.slice(0, 8)}, its publisher was not recorded`);
    expect(await evidenceLine('elsewhere')).toBe(`evidence ${ELSEWHERE} (${NO_LINKED_GENERATION})`);
    expect(await evidenceLine('opaque')).toBe(`evidence ${OPAQUE}`);

    const json = JSON.parse((await show('by-self', '--json')).out) as { evidence_generations: { generation: { actor: string; actor_name: string | null } | null }[] };
    expect(json.evidence_generations.map((e) => e.generation)).toEqual([expect.objectContaining({ generation_uuid: gens.self.generation_uuid, actor: self, actor_name: 'Margaret Hamilton' })]);
    const csv = (await show('by-stranger', '--csv')).out.trim().split('\n');
    const header = csv[0]!.split(',');
    const patch = csv.find((l) => l.includes('patch_applied'))!.split(',');
    const cell = (c: string) => patch[header.indexOf(c)];
    expect([cell('evidence_generation_uuid'), cell('evidence_publisher_actor'), cell('evidence_publisher_name')]).toEqual([gens.stranger.generation_uuid, STRANGER, '']);
  });

  it('ledgers of a directory that is no workspace: the engine has no lineage to look in (null) and gf chain show says so', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'gf-chain-evidence-plain-'));
    try {
      mkdirSync(join(plain, 'chain'));
      const store = new SqliteChainStore(join(plain, 'chain'));
      try {
        await ledger(store, 'by-ada', `sha256:${gens.ada.manifest_sha256}`, 1);
      } finally {
        await store.close();
      }
      const r = await gf('chain', 'show', 'by-ada', '--project', plain);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`evidence sha256:${gens.ada.manifest_sha256} (${NO_LINEAGE})`);
      expect(JSON.parse((await gf('chain', 'show', 'by-ada', '--project', plain, '--json')).out)).toMatchObject({ evidence_generations: null });
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
