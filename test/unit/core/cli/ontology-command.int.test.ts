import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { gf } from '../../../support/cli-run';
import { tempDir } from '../revert/revert-support';

// Issue 21 acceptance: `gf ontology adopt FILE --mode strict` then
// `gf ontology clear` on the demo, each replayed with the same key, publish
// exactly two generations; the documents' bytes are in the ADR's field order,
// canonical JSON + LF. Everything goes through the dispatcher in-process.

let tmp: string;
let dir: string;
const ADOPT = '018f0f4e-7b8c-7000-8000-00000000ab01';
const CLEAR = '018f0f4e-7b8c-7000-8000-00000000ab02';

beforeAll(async () => {
  tmp = tempDir('gf-ontology-cli-');
  dir = path.join(tmp, 'demo');
  await createDemoWorkspace(dir, { records: 60, seed: 7 });
  fs.writeFileSync(
    path.join(tmp, 'onto.yaml'),
    ['classes:', ...['paper', 'author', 'concept', 'dataset', 'software'].map((c) => `  - {id: ${c}, label: ${c}}`), 'relations:', ...[['cites', 'paper', 'paper'], ['authored_by', 'paper', 'author'], ['mentions', 'paper', 'concept'], ['uses', 'paper', 'dataset'], ['implements', 'software', 'concept']].map(([r, d, g]) => `  - {id: ${r}, label: ${r}, domain_class_id: ${d}, range_class_id: ${g}}`), ''].join('\n'),
  );
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function currentDocuments(): Promise<{ generation: string; ontology: string; configuration: string }> {
  const p = await openProject(dir, { catalog: registryCatalog });
  const lease = p.lease();
  try {
    const text = (key: string): string => Buffer.from(lease.readParticipantBytes(lease.participant(key) as never)).toString('utf8');
    return { generation: lease.generationUuid, ontology: text('workspace/ontology'), configuration: text('workspace/configuration') };
  } finally {
    lease.release();
  }
}

describe('gf ontology / gf config', () => {
  it('adopt --mode strict then clear, each replayed with its key: exactly two generations, ADR bytes', { timeout: 120_000 }, async () => {
    const start = (await currentDocuments()).generation;
    const adopt = ['ontology', 'adopt', path.join(tmp, 'onto.yaml'), '--mode', 'strict', '--project', dir, '--idempotency-key', ADOPT, '--json'];
    const a1 = await gf(...adopt);
    expect({ code: a1.code, err: a1.err }).toEqual({ code: 0, err: '' });
    const a2 = await gf(...adopt);
    expect(a2.out).toBe(a1.out);
    const adopted = await currentDocuments();
    expect(adopted.ontology).toMatch(/^\{"contract_version":1,"mode":"strict","source_format":"yaml","canonical_ontology_sha256":"[0-9a-f]{64}","canonical_ontology":\{"classes":\[\{"id":"author","label":"author","parent_class_id":null\},/);
    expect(adopted.ontology.endsWith('}\n')).toBe(true);
    expect(adopted.configuration).toMatch(/^\{"contract_version":1,"ontology_mode":"strict","capability_configuration":\{.*\},"embedding_configuration":\{.*\}\}\n$/);

    const clear = ['ontology', 'clear', '--project', dir, '--idempotency-key', CLEAR, '--json'];
    const c1 = await gf(...clear);
    expect(c1.code).toBe(0);
    expect((await gf(...clear)).out).toBe(c1.out);
    const cleared = await currentDocuments();
    expect(cleared.ontology).toBe('{"contract_version":1,"mode":"none","source_format":null,"canonical_ontology_sha256":null,"canonical_ontology":null}\n');

    const p = await openProject(dir, { catalog: registryCatalog });
    expect(p.history().slice(0, 3).map((g) => g.generationUuid)).toEqual([cleared.generation, adopted.generation, start]);

    const show = await gf('ontology', 'show', '--project', dir);
    expect(show.out).toContain('no ontology adopted (mode none)');
    const cfg = await gf('config', 'show', '--project', dir, '--json');
    expect(cfg.code).toBe(0);
    expect(cfg.out).toContain('"ontology_mode":"none"');
  });

  it('a bad file is refused with its code and changes nothing', async () => {
    fs.writeFileSync(path.join(tmp, 'bad.yaml'), 'classes: [{id: a, label: A, parent_class_id: ghost}]\n');
    const before = fs.readFileSync(path.join(dir, 'CURRENT'));
    const r = await gf('ontology', 'adopt', path.join(tmp, 'bad.yaml'), '--mode', 'advisory', '--project', dir, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000ab03');
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('GF_VALIDATION');
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(before);
  });
});
