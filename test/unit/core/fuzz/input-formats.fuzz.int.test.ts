import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { startBridge, type Bridge } from '../../../../core/api/http-bridge';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { verify } from '../../../../core/chain/verify';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { DEMO_WORKFLOWS } from '../../../../core/demo/demo-ledgers';
import { CHAIN_DB_FILE, workflowDirName } from '../../../../core/chain/sqlite/sqlite-schema';
import { toWireError } from '../../../../core/errors';
import { decodeParticipant } from '../../../../core/participants/codec';
import { findFamily } from '../../../../core/participants/family-registry';
import { canonicalOntologyModel } from '../../../../core/participants/document-values';
import { parseOntologyInput } from '../../../../core/workspace/index';

// Fuzzing every input format the app reads: random and mutated inputs,
// bounded in count (fixed seeds, so a failure replays), each answered with a
// typed refusal or a clean result, and never GF_INTERNAL. Each suite prints
// its tally: inputs, refusals, GF_INTERNAL.

/** A small deterministic generator (mulberry32): the same inputs on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One mutation of `bytes`: flipped bits, overwritten, deleted, inserted or truncated runs. */
function mutate(bytes: Uint8Array, r: () => number): Uint8Array {
  const out = Buffer.from(bytes);
  const kind = Math.floor(r() * 5);
  const at = Math.floor(r() * Math.max(1, out.length));
  const run = 1 + Math.floor(r() * 16);
  if (kind === 0) for (let i = 0; i < run; i++) out[(at + i * 97) % out.length] = (out[(at + i * 97) % out.length] as number) ^ (1 << Math.floor(r() * 8));
  if (kind === 1) for (let i = 0; i < run && at + i < out.length; i++) out[at + i] = Math.floor(r() * 256);
  if (kind === 2) return Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + run))]);
  if (kind === 3) return Buffer.concat([out.subarray(0, at), Buffer.from(Array.from({ length: run }, () => Math.floor(r() * 256))), out.subarray(at)]);
  if (kind === 4) return out.subarray(0, at);
  return out;
}

interface Tally {
  inputs: number;
  refusals: number;
  internal: number;
}

/** Runs one input: a clean result, or a refusal whose wire code must be typed (never GF_INTERNAL). */
async function judge(t: Tally, f: () => unknown): Promise<void> {
  t.inputs++;
  try {
    await f();
  } catch (e) {
    t.refusals++;
    const code = toWireError(e).code;
    if (code === 'GF_INTERNAL') {
      t.internal++;
      throw new Error(`GF_INTERNAL for input ${t.inputs}: ${String((e as Error).stack ?? e)}`);
    }
  }
}

const report = (what: string, t: Tally): void => {
  console.log(`fuzz ${what}: ${t.inputs} inputs, ${t.refusals} refusals, ${t.internal} GF_INTERNAL`);
};

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-fuzz-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('fuzz', () => {
  it('chain ledger SQLite: 150 mutated ledgers, each verified, listed and scanned', async () => {
    const workflow = DEMO_WORKFLOWS[0]?.workflow_id as string;
    const original = fs.readFileSync(path.join(demo, 'chain', workflowDirName(workflow), CHAIN_DB_FILE));
    const r = rng(34_001);
    const t: Tally = { inputs: 0, refusals: 0, internal: 0 };
    for (let i = 0; i < 150; i++) {
      const root = path.join(base, `ledger-${i}`);
      fs.mkdirSync(path.join(root, workflowDirName(workflow)), { recursive: true });
      // Mutations land in the header, the schema pages and the rows alike (several per input).
      let bytes: Uint8Array = original;
      for (let m = 1 + Math.floor(r() * 4); m > 0; m--) bytes = mutate(bytes, r);
      fs.writeFileSync(path.join(root, workflowDirName(workflow), CHAIN_DB_FILE), bytes);
      const store = new SqliteChainStore(root);
      try {
        await judge(t, () => verify(store, workflow));
        await judge(t, () => store.scanLedgers());
        await judge(t, () => store.tailChainHead(workflow));
      } finally {
        await store.close();
      }
      fs.rmSync(root, { recursive: true, force: true });
    }
    report('chain ledger SQLite', t);
    expect(t.internal).toBe(0);
    expect(t.inputs).toBe(450);
  }, 300_000);

  it('Arrow participant: 400 mutated participant files decoded, each a table or a typed refusal', async () => {
    const current = (JSON.parse(fs.readFileSync(path.join(demo, 'CURRENT'), 'utf8')) as { generation_uuid: string }).generation_uuid;
    const manifest = JSON.parse(fs.readFileSync(path.join(demo, 'generations', current, 'manifest.json'), 'utf8')) as {
      participants: { capability_id: string; record_family_id: string; encoding: string; content_sha256: string }[];
    };
    const arrow = manifest.participants.filter((p) => p.encoding === 'arrow');
    expect(arrow.length).toBeGreaterThan(0);
    const r = rng(34_002);
    const t: Tally = { inputs: 0, refusals: 0, internal: 0 };
    for (let i = 0; i < 400; i++) {
      const p = arrow[i % arrow.length] as (typeof arrow)[number];
      const family = findFamily(p.capability_id, p.record_family_id);
      if (family === undefined) throw new Error('a demo participant of an unregistered family');
      const bytes = fs.readFileSync(path.join(demo, 'objects', 'sha256', p.content_sha256.slice(0, 2), p.content_sha256.slice(2)));
      const input = i % 10 === 0 ? Buffer.from(Array.from({ length: Math.floor(r() * 4096) }, () => Math.floor(r() * 256))) : mutate(bytes, r);
      await judge(t, () => {
        const table = decodeParticipant(family, input);
        for (const f of table.schema.fields) table.getChild(f.name)?.toArray();
      });
    }
    report('Arrow participant', t);
    expect(t.internal).toBe(0);
  }, 300_000);

  it('ontology YAML/JSON: 1,500 random and mutated inputs, parsed and validated', async () => {
    const seeds = [
      'classes:\n  - id: paper\n    label: Paper\n  - {id: author, label: "Author", parent_class_id: paper}\nrelations:\n  - id: cites\n    label: Cites\n    domain_class_id: paper\n    range_class_id: paper\n',
      '{"classes":[{"id":"a","label":"A"},{"id":"b","label":"B","parent_class_id":"a"}],"relations":[]}',
    ];
    const alphabet = ['{', '}', '[', ']', ':', ',', '"', "'", '-', ' ', '\n', '  ', '&a', '*a', '!!str', '? ', '#', '|', '>', '\\', '\u202e', '\u0000', '\uFEFF', 'id', 'label', 'classes', '1e999', 'null', '~', '<<: *a'];
    const r = rng(34_003);
    const t: Tally = { inputs: 0, refusals: 0, internal: 0 };
    for (let i = 0; i < 1500; i++) {
      const format = i % 2 === 0 ? 'yaml' : 'json';
      const text =
        i % 3 === 0
          ? Array.from({ length: Math.floor(r() * 40) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('')
          : Buffer.from(mutate(Buffer.from(seeds[i % 2] as string, 'utf8'), r)).toString('utf8');
      await judge(t, () => canonicalOntologyModel(parseOntologyInput(text, format)));
    }
    report('ontology YAML/JSON', t);
    expect(t.internal).toBe(0);
  }, 300_000);

  it('page tokens: 600 random and mutated tokens through every paged operation', async () => {
    const facade = createFacade({ mode: 'browser' });
    try {
      const opened = (await facade.dispatcher.dispatch('project.open', { path: demo })) as { ok: true; value: { project: string } };
      const project = opened.value.project;
      const real = (await facade.dispatcher.dispatch('history.list', { project, limit: 1 })) as { ok: true; value: { next_page_token: string } };
      const seedToken = real.value.next_page_token;
      const workflow = DEMO_WORKFLOWS[0]?.workflow_id as string;
      const requests = (after: string): [string, object][] => [
        ['history.list', { project, limit: 1, after }],
        ['checkpoints.list', { project, limit: 1, after }],
        ['chain.rows', { project, workflow_id: workflow, limit: 1, after }],
      ];
      const r = rng(34_004);
      const t: Tally = { inputs: 0, refusals: 0, internal: 0 };
      for (let i = 0; i < 200; i++) {
        const token = i % 2 === 0 ? Buffer.from(mutate(Buffer.from(seedToken, 'utf8'), r)).toString('latin1') : Buffer.from(Array.from({ length: Math.floor(r() * 64) }, () => 33 + Math.floor(r() * 94))).toString('latin1');
        for (const [op, req] of requests(token)) {
          t.inputs++;
          const env = (await facade.dispatcher.dispatch(op, req)) as { ok: boolean; error?: { code: string } };
          if (!env.ok) t.refusals++;
          if (env.error?.code === 'GF_INTERNAL') t.internal++;
          expect(env.error?.code).not.toBe('GF_INTERNAL');
        }
      }
      report('page tokens', t);
      expect(t.internal).toBe(0);
    } finally {
      await facade.close();
    }
  }, 300_000);

  it('HTTP bodies: 600 random and mutated bodies to the bridge, each a typed envelope', async () => {
    const facade = createFacade({ mode: 'browser' });
    const bridge: Bridge = await startBridge({ dispatcher: facade.dispatcher });
    const post = (route: string, body: Buffer): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: bridge.port, path: route, method: 'POST', headers: { host: `127.0.0.1:${bridge.port}`, authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const templates: [string, string][] = [
        ['/api/project.open', JSON.stringify({ path: demo })],
        ['/api/checkpoints.create', JSON.stringify({ project: '018f0f4e-7b8c-7000-8000-00000000aaaa', name: 'n', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000bbbb' })],
        ['/api/threads.list', JSON.stringify({ source: { kind: 'sqlite', path: path.join(base, 'nothing.sqlite') } })],
        ['/api/workspace.adopt_ontology', JSON.stringify({ project: '018f0f4e-7b8c-7000-8000-00000000aaaa', source: 'classes: []', source_format: 'yaml', mode: 'advisory', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000cccc' })],
        ['/api/history.list', JSON.stringify({ project: '018f0f4e-7b8c-7000-8000-00000000aaaa', limit: 0 })],
      ];
      const r = rng(34_005);
      const t: Tally = { inputs: 0, refusals: 0, internal: 0 };
      for (let i = 0; i < 600; i++) {
        const [route, body] = templates[i % templates.length] as [string, string];
        const input = i % 7 === 0 ? Buffer.from(Array.from({ length: Math.floor(r() * 256) }, () => Math.floor(r() * 256))) : Buffer.from(mutate(Buffer.from(body, 'utf8'), r));
        t.inputs++;
        const reply = await post(route, input);
        const env = JSON.parse(reply.body) as { ok: boolean; error?: { code: string } };
        if (!env.ok) t.refusals++;
        if (env.error?.code === 'GF_INTERNAL' || reply.status === 500) t.internal++;
        expect({ i, code: env.error?.code, status: reply.status }).not.toMatchObject({ code: 'GF_INTERNAL' });
      }
      report('HTTP bodies', t);
      expect(t.internal).toBe(0);
    } finally {
      await bridge.close();
      await facade.close();
    }
  }, 300_000);
});
