import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { FAILPOINT_NAMES, committedAt, readLineage } from '../../../../core/project/index';
import type { FailpointName, LineageRecord } from '../../../../core/project/index';
import { WorkspaceDocuments } from '../../../../core/workspace/index';
import type { OntologyReceipt } from '../../../../core/workspace/index';
import { observe } from '../../../support/project-state';
import type { ObservedState } from '../../../support/project-state';
import { demoProject, tempDir } from '../revert/revert-support';
import { demoOntologyYaml } from '../../../support/demo-ontology';

// adopt_ontology_failpoint_matrix / clear_ontology_failpoint_matrix (ADR-0014
// "Complete workspace": adoption publishes a complete generation; crash tests
// terminate subprocesses): a real `gf ontology adopt` / `gf ontology clear`
// child is SIGKILLed at every publication failpoint of the workspace store.
// On reopen the workspace is exactly the prior one before the CURRENT rename
// and exactly the adopted (cleared) one from it on — never a mixture, never a
// second new generation; a replay with the same key then returns the
// original receipt and publishes nothing more.

const BATCH = 4;
const ADOPT_KEY = '018f0f4e-7b8c-7000-8000-00000000ad01';
const CLEAR_KEY = '018f0f4e-7b8c-7000-8000-00000000ad02';
const POINTS = FAILPOINT_NAMES.filter((n) => n !== 'project.after_format_fsync' && n !== 'project.after_container_dir_fsync');
/**
 * Clear runs the same write path as adopt (`#write` → one `publish`): it is killed at one failpoint of each
 * protocol phase (lock, journal, staging, durable journal, either side of the CURRENT rename, lineage, published, gc),
 * which keeps the suite lean; adopt walks every failpoint.
 */
const CLEAR_POINTS: readonly FailpointName[] = [
  'project.after_writer_lock',
  'project.after_journal_preparing',
  'project.after_journal_staged',
  'project.after_journal_durable',
  'project.before_current_replace',
  'project.after_current_replace',
  'project.after_lineage_append',
  'project.after_journal_published',
  'project.after_gc_move',
];

// The demo's strict ontology plus one class: a strict adoption the demo graph fits, with other documents than the demo's.
const ONTOLOGY = demoOntologyYaml([{ id: 'venue', label: 'Venue' }]);

type Op = 'adopt' | 'clear';

let tmp: string;
let fixture: string;
let file: string;
let before: ObservedState;
const ref = {} as Record<Op, { after: ObservedState; log: readonly Omit<LineageRecord, 'publishedAt'>[]; receipt: OntologyReceipt }>;

/** A lineage record without its clock reading (the killed child sampled its own `published_at`). */
const timeless = (records: readonly LineageRecord[]): Omit<LineageRecord, 'publishedAt'>[] => records.map(({ publishedAt: _t, ...r }) => r);

function run(op: Op, dir: string): Promise<OntologyReceipt> {
  return openCheckpointedProject(dir).then((p) => {
    const docs = new WorkspaceDocuments(p);
    return op === 'adopt' ? docs.adoptOntology({ source: ONTOLOGY, sourceFormat: 'yaml', mode: 'strict', idempotencyKey: ADOPT_KEY }) : docs.clearOntology({ idempotencyKey: CLEAR_KEY });
  });
}

function copy(label: string): string {
  const d = path.join(tmp, label.replace(/[^a-z0-9_.]/gi, '_'));
  fs.cpSync(fixture, d, { recursive: true });
  return d;
}

/** `gf ontology adopt|clear` in its own process with one failpoint armed. */
function gfChild(op: Op, dir: string, failpoint: string): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  const args = op === 'adopt' ? ['ontology', 'adopt', file, '--mode', 'strict', '--idempotency-key', ADOPT_KEY] : ['ontology', 'clear', '--idempotency-key', CLEAR_KEY];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), ...args, '--project', dir], {
      env: { ...process.env, GF_FAILPOINT: failpoint },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ signal, stdout }));
  });
}

beforeAll(async () => {
  tmp = tempDir('gf-adopt-crash-');
  fixture = path.join(tmp, 'fixture');
  file = path.join(tmp, 'ontology.yaml');
  fs.writeFileSync(file, ONTOLOGY);
  await demoProject(fixture, 40);
  before = await observe(fixture);
  for (const op of ['adopt', 'clear'] as const) {
    const d = copy(`reference-${op}`);
    const receipt = await run(op, d);
    ref[op] = { after: await observe(d), log: timeless(readLineage(d).records), receipt };
  }
}, 180_000);

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function checkThenReplay(op: Op, dir: string, name: FailpointName): Promise<void> {
  const r = ref[op];
  const committed = committedAt(name);
  // All or nothing: the prior workspace, or the new documents with exactly one new generation.
  expect({ op, failpoint: name, ...(await observe(dir)) }).toEqual({ op, failpoint: name, ...(committed ? r.after : before) });
  const log = readLineage(dir);
  expect({ op, failpoint: name, torn: log.tornBytes, records: timeless(log.records) }).toEqual({ op, failpoint: name, torn: 0, records: committed ? r.log : r.log.slice(0, -1) });
  // The replay (same key) returns the original receipt; a second replay too; nothing more is published.
  expect({ op, failpoint: name, receipt: await run(op, dir) }).toEqual({ op, failpoint: name, receipt: r.receipt });
  expect({ op, failpoint: name, receipt: await run(op, dir) }).toEqual({ op, failpoint: name, receipt: r.receipt });
  expect({ op, failpoint: name, ...(await observe(dir)) }).toEqual({ op, failpoint: name, ...r.after });
  expect({ op, failpoint: name, records: timeless(readLineage(dir).records) }).toEqual({ op, failpoint: name, records: r.log });
}

describe('adopt_ontology / clear_ontology publication failpoint matrix (SIGKILL of a gf child)', () => {
  it('the references change the workspace documents by exactly one generation (the matrix can tell prior from new)', () => {
    for (const op of ['adopt', 'clear'] as const) {
      expect(ref[op].after.generationUuid).toBe(ref[op].receipt.result_generation_uuid);
      expect(ref[op].receipt.prior_current_generation_uuid).toBe(before.generationUuid);
      expect(ref[op].log.length).toBe(timeless(readLineage(fixture).records).length + 1);
      const docs = (s: ObservedState) => s.participants.filter((p) => p.family.startsWith('workspace/')).map((p) => p.sha256);
      expect(docs(ref[op].after)).not.toEqual(docs(before));
    }
  });

  for (const [op, points] of [['adopt', POINTS], ['clear', CLEAR_POINTS]] as const) {
    const which = op === 'adopt' ? 'every publication failpoint' : 'one failpoint of each publication phase';
    it(`SIGKILL of gf ontology ${op} at ${which}: prior or new on reopen, then the replay returns the original receipt`, { timeout: 600_000 }, async () => {
      for (let i = 0; i < points.length; i += BATCH) {
        const batch = points.slice(i, i + BATCH);
        const dirs = batch.map((n) => copy(`${op}-${n}`));
        const results = await Promise.all(batch.map((n, k) => gfChild(op, dirs[k] as string, n)));
        results.forEach((res, k) => expect({ op, failpoint: batch[k], signal: res.signal, stdout: res.stdout }).toEqual({ op, failpoint: batch[k], signal: 'SIGKILL', stdout: '' }));
        for (let k = 0; k < batch.length; k++) await checkThenReplay(op, dirs[k] as string, batch[k] as FailpointName);
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      }
    });
  }
});
