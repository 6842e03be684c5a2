import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { armFailpointForTesting, committedAt, createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { FailpointName, Project } from '../../../../core/project/index';
import { WorkspaceDocuments } from '../../../../core/workspace/index';
import { demoProject, tempDir } from '../revert/revert-support';
import { putNodes } from '../../../support/project-fixtures';
import { demoOntologyYaml } from '../../../support/demo-ontology';

// adopt_ontology / clear_ontology (ADR-0014 "Complete workspace"; issue 21
// item 2 acceptance): adopt --mode strict then clear on the demo, each
// replayed with the same key, publish exactly two generations; the
// documents' bytes are the ADR's; the mandatory workspace@1 participants are
// in every generation, the first one included.

let tmp: string;
let dir: string;
let project: Project<Table>;
const ADOPT = '018f0f4e-7b8c-7000-8000-00000000dd01';
const CLEAR = '018f0f4e-7b8c-7000-8000-00000000dd02';

const ONTOLOGY = demoOntologyYaml();

function documentText(p: Project<Table>, key: string): string {
  const lease = p.lease();
  try {
    const entry = lease.participant(key);
    return entry === undefined ? 'absent' : Buffer.from(lease.readParticipantBytes(entry)).toString('utf8');
  } finally {
    lease.release();
  }
}

async function codeOf(f: () => Promise<unknown>): Promise<{ code: string; committed?: boolean; rule?: unknown }> {
  try {
    await f();
    return { code: 'accepted' };
  } catch (e) {
    const g = e as { code: string; committed?: boolean; details?: Record<string, unknown> };
    return { code: g.code, committed: g.committed, ...(g.details?.['rule'] === undefined ? {} : { rule: g.details['rule'] }) };
  }
}

beforeAll(async () => {
  tmp = tempDir('gf-adopt-');
  dir = path.join(tmp, 'demo');
  project = await demoProject(dir, 60);
}, 120_000);

afterAll(() => {
  armFailpointForTesting(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('adopt_ontology and clear_ontology', () => {
  it('adopt strict then clear, each replayed with its key, publish exactly two generations', async () => {
    const docs = new WorkspaceDocuments(project);
    const start = project.current()?.generationUuid;
    const adopt = { source: ONTOLOGY, sourceFormat: 'yaml', mode: 'strict', idempotencyKey: ADOPT };
    const a1 = await docs.adoptOntology(adopt);
    const a2 = await docs.adoptOntology(adopt);
    expect(a2).toEqual(a1);
    expect(a1).toMatchObject({ operation: 'adopt_ontology', mode: 'strict', source_format: 'yaml' });
    expect(project.current()?.generationUuid).toBe(a1.result_generation_uuid);
    const adopted = documentText(project, 'workspace/ontology');
    expect(adopted.startsWith('{"contract_version":1,"mode":"strict","source_format":"yaml","canonical_ontology_sha256":"')).toBe(true);
    expect(adopted.endsWith('}\n')).toBe(true);
    expect(documentText(project, 'workspace/configuration')).toMatch(/^\{"contract_version":1,"ontology_mode":"strict","capability_configuration":/);
    expect(docs.ontology()).toMatchObject({ generation_uuid: a1.result_generation_uuid, mode: 'strict', class_count: 5, relation_count: 5, contract_version: 1, canonical_ontology_sha256: a1.canonical_ontology_sha256 });

    const c1 = await docs.clearOntology({ idempotencyKey: CLEAR });
    expect(await docs.clearOntology({ idempotencyKey: CLEAR })).toEqual(c1);
    expect(c1).toMatchObject({ operation: 'clear_ontology', mode: 'none', source_format: null, canonical_ontology_sha256: null, prior_current_generation_uuid: a1.result_generation_uuid });
    expect(documentText(project, 'workspace/ontology')).toBe('{"contract_version":1,"mode":"none","source_format":null,"canonical_ontology_sha256":null,"canonical_ontology":null}\n');
    expect(docs.configuration()).toMatchObject({ generation_uuid: c1.result_generation_uuid, ontology_mode: 'none', contract_version: 1 });
    // The demo's settings are carried through both changes; only the mode moved.
    expect(JSON.parse(docs.configuration().embedding_configuration)).toEqual({ dimensions: 384, distance: 'cosine', model_id: 'all-minilm-l6-v2' });
    // Exactly two generations: CURRENT → adopt → clear, parent to child (replays moved nothing).
    expect([a1.prior_current_generation_uuid, c1.prior_current_generation_uuid]).toEqual([start, a1.result_generation_uuid]);
    expect(project.history().slice(0, 3).map((g) => g.generationUuid)).toEqual([c1.result_generation_uuid, a1.result_generation_uuid, start]);
    // A replay of the adopt after the clear still returns its original receipt and publishes nothing.
    expect(await docs.adoptOntology(adopt)).toEqual(a1);
    expect(project.current()?.generationUuid).toBe(c1.result_generation_uuid);
  });

  it('a key reused for a different request is GF_IDEMPOTENCY_CONFLICT, committed false, nothing published', async () => {
    const docs = new WorkspaceDocuments(project);
    const before = project.current()?.generationUuid;
    expect(await codeOf(() => docs.adoptOntology({ source: ONTOLOGY, sourceFormat: 'yaml', mode: 'advisory', idempotencyKey: ADOPT }))).toEqual({ code: 'GF_IDEMPOTENCY_CONFLICT', committed: false });
    expect(await codeOf(() => docs.adoptOntology({ source: ONTOLOGY, sourceFormat: 'yaml', mode: 'strict', idempotencyKey: CLEAR }))).toEqual({ code: 'GF_IDEMPOTENCY_CONFLICT', committed: false });
    expect(project.current()?.generationUuid).toBe(before);
  });

  it('bad input is refused with a typed code before anything is written', async () => {
    const docs = new WorkspaceDocuments(project);
    const before = fs.readFileSync(path.join(dir, 'CURRENT'));
    const k = '018f0f4e-7b8c-7000-8000-00000000dd03';
    expect(await codeOf(() => docs.adoptOntology({ source: 'classes: [', sourceFormat: 'yaml', mode: 'strict', idempotencyKey: k }))).toMatchObject({ code: 'GF_VALIDATION', committed: false, rule: 'workspace.ontology.input_syntax' });
    expect(await codeOf(() => docs.adoptOntology({ source: 'classes: [{id: a, label: A, parent_class_id: ghost}]', sourceFormat: 'yaml', mode: 'strict', idempotencyKey: k }))).toMatchObject({ code: 'GF_VALIDATION', committed: false, rule: 'workspace.ontology.class_reference_exists' });
    expect(await codeOf(() => docs.adoptOntology({ source: ONTOLOGY, sourceFormat: 'yaml', mode: 'none', idempotencyKey: k }))).toMatchObject({ code: 'GF_VALIDATION', committed: false });
    expect(await codeOf(() => docs.adoptOntology({ source: ONTOLOGY, sourceFormat: 'yaml', mode: 'strict', idempotencyKey: 'not-a-uuid' }))).toMatchObject({ code: 'GF_VALIDATION', committed: false });
    // Strict mode with an ontology the demo graph does not fit: the composite validation refuses it.
    expect(await codeOf(() => docs.adoptOntology({ source: 'classes: [{id: paper, label: Paper}]', sourceFormat: 'yaml', mode: 'strict', idempotencyKey: k }))).toMatchObject({ code: 'GF_VALIDATION', committed: false, rule: 'graph.node.class_in_ontology' });
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(before);
  });

  it('every .error failpoint of the adopt reports committed truthfully; the replay then returns one receipt', { timeout: 120_000 }, async () => {
    const points: FailpointName[] = ['project.after_journal_staged', 'project.after_composite_validation', 'project.before_current_replace', 'project.after_current_replace', 'project.after_journal_published'];
    for (const [i, name] of points.entries()) {
      const d = path.join(tmp, `fp-${i}`);
      fs.cpSync(dir, d, { recursive: true });
      const p = await openCheckpointedProject(d);
      const prior = p.current()?.generationUuid;
      const key = `018f0f4e-7b8c-7000-8000-0000000ee0${i.toString().padStart(2, '0')}`;
      const input = { source: ONTOLOGY, sourceFormat: 'yaml', mode: 'advisory', idempotencyKey: key };
      armFailpointForTesting(`${name}.error`);
      const failed = await codeOf(() => new WorkspaceDocuments(p).adoptOntology(input));
      armFailpointForTesting(undefined);
      expect({ name, ...failed }).toEqual({ name, code: 'GF_IO', committed: committedAt(name) });
      const reopened = await openCheckpointedProject(d);
      expect({ name, current: reopened.current()?.generationUuid === prior }).toEqual({ name, current: !committedAt(name) });
      const r = await new WorkspaceDocuments(reopened).adoptOntology(input);
      expect({ name, current: reopened.current()?.generationUuid, parent: r.prior_current_generation_uuid }).toEqual({ name, current: r.result_generation_uuid, parent: prior });
      expect(await new WorkspaceDocuments(reopened).adoptOntology(input)).toEqual(r);
    }
  });
});

describe('mandatory workspace@1 participants', () => {
  it('are in the first generation (explicit none) and in every later one; a removal publishes the explicit none document', async () => {
    const d = path.join(tmp, 'fresh');
    const p = await createProject<Table>(d, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(2, 'm')] });
    expect(documentText(p, 'workspace/ontology')).toBe('{"contract_version":1,"mode":"none","source_format":null,"canonical_ontology_sha256":null,"canonical_ontology":null}\n');
    expect(documentText(p, 'workspace/configuration')).toBe('{"contract_version":1,"ontology_mode":"none","capability_configuration":{},"embedding_configuration":{}}\n');
    const docs = new WorkspaceDocuments(p);
    await docs.adoptOntology({ source: '{"classes":[{"id":"paper","label":"Paper"}]}', sourceFormat: 'json', mode: 'advisory', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000ff01' });
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'remove', capabilityId: 'workspace', recordFamilyId: 'ontology' }, { kind: 'remove', capabilityId: 'workspace', recordFamilyId: 'configuration' }] });
    expect(docs.ontology()).toMatchObject({ mode: 'none', canonical_ontology_sha256: null });
    expect(docs.configuration()).toMatchObject({ ontology_mode: 'none' });
  });
});

describe('the diff shows the workspace documents field by field', () => {
  it('a record diff between the adopt and the clear names the changed document fields', async () => {
    const { Checkpoints } = await import('../../../../core/checkpoints/checkpoints');
    const { diffCheckpoints, projectShell } = await import('../../../../core/diff/index');
    const d = path.join(tmp, 'diff');
    const p = await createProject<Table>(d, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(2, 'd')] });
    const cp = new Checkpoints(await openCheckpointedProject(d));
    await cp.checkpoint({ name: 'none', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000fd01' });
    await new WorkspaceDocuments(await openCheckpointedProject(d)).adoptOntology({ source: '{"classes":[{"id":"paper","label":"Paper"}]}', sourceFormat: 'json', mode: 'advisory', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000fd02' });
    const page = await diffCheckpoints({ from: 'none', to: 'CURRENT', scope: 'ontology', detail: 'records', limit: 100 }, projectShell(cp));
    const fields = page.table.toArray().map((r) => String((r.toJSON() as Record<string, unknown>)['change_kind']));
    // mode, source_format, canonical_ontology_sha256, canonical_ontology changed; contract_version did not.
    expect(fields).toEqual(['modified', 'modified', 'modified', 'modified']);
  });
});

describe('workspace.ontology / workspace.configuration of an open checkpoint view', () => {
  it('read the generation the view pins, not CURRENT; exactly one of project or view', async () => {
    const { tableFromIPC } = await import('apache-arrow');
    const { createFacade } = await import('../../../../core/api/facade');
    const { Checkpoints } = await import('../../../../core/checkpoints/checkpoints');
    const d = path.join(tmp, 'view-docs');
    const p = await createProject<Table>(d, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(2, 'v')] });
    const docs = new WorkspaceDocuments(await openCheckpointedProject(d));
    const adopted = await docs.adoptOntology({ source: '{"classes":[{"id":"paper","label":"Paper"}]}', sourceFormat: 'json', mode: 'strict', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000fe01' });
    await new Checkpoints(await openCheckpointedProject(d)).checkpoint({ name: 'adopted', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000fe02' });
    await docs.clearOntology({ idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000fe03' });
    const facade = createFacade({ mode: 'library' });
    try {
      const call = async (op: string, req: Record<string, unknown>): Promise<unknown> => {
        const env = await facade.dispatcher.dispatch(op, req);
        if (!env.ok) return env.error.code;
        return env.value;
      };
      // Digests travel as fixed-size binary: shown as hex here, as every surface shows them.
      const row = (v: unknown): Record<string, unknown> =>
        Object.fromEntries(Object.entries({ ...(tableFromIPC((v as { bytes: Uint8Array }).bytes).toArray()[0] as Record<string, unknown>) }).map(([k, x]) => [k, x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x]));
      const project = (await facade.launch(d)).project;
      const view = ((await call('view.open', { project, name: 'adopted' })) as { view: string }).view;
      expect(row(await call('workspace.ontology', { view }))).toMatchObject({ mode: 'strict', class_count: 1, source_format: 'json', canonical_ontology_sha256: adopted.canonical_ontology_sha256, canonical_ontology: '{"classes":[{"id":"paper","label":"Paper","parent_class_id":null}],"relations":[]}' });
      expect(row(await call('workspace.configuration', { view }))).toMatchObject({ ontology_mode: 'strict', capability_configuration: '{}', embedding_configuration: '{}' });
      expect(row(await call('workspace.ontology', { project }))).toMatchObject({ mode: 'none', canonical_ontology_sha256: null, canonical_ontology: null });
      expect(await call('workspace.ontology', { project, view })).toBe('GF_VALIDATION');
      expect(await call('workspace.configuration', {})).toBe('GF_VALIDATION');
    } finally {
      await facade.close();
    }
  });
});

describe('the demo adopts its ontology through adopt_ontology', () => {
  it('its history holds the two adoptions (advisory, then strict) as ontology publications with their receipts and the curator as actor', async () => {
    const { readLineage } = await import('../../../../core/project/index');
    const { lookupRevertReceipt } = await import('../../../../core/checkpoints/revert-receipts');
    const { ontologyTransactionUuid } = await import('../../../../core/workspace/index');
    const { demoUuid } = await import('../../../../core/demo/rng');
    // demoProject builds with seed 7; the script keys each adoption by its step id.
    const adoptions = [
      { key: demoUuid(7, 'import-ontology/adopt-ontology/advisory'), mode: 'advisory' },
      { key: demoUuid(7, 'strict-ontology/adopt-ontology/strict'), mode: 'strict' },
    ];
    const log = readLineage(dir).records;
    for (const a of adoptions) {
      const found = lookupRevertReceipt(dir, ontologyTransactionUuid(a.key));
      expect(found.kind).toBe('record');
      const ext = (found as { extension: Record<string, unknown> }).extension;
      expect(ext).toMatchObject({ operation: 'adopt_ontology', mode: a.mode, source_format: 'yaml', operation_uuid: a.key });
      const record = log.find((r) => r.generationUuid === ext['result_generation_uuid']);
      expect(record).toMatchObject({ actor: demoUuid(7, 'actor/curator'), parentGenerationUuid: ext['prior_current_generation_uuid'] });
    }
  });
});
