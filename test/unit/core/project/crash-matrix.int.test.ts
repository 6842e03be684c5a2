import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILPOINT_NAMES, committedAt, createProject, openProject, readLineage } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { FailpointName, LineageRecord, Project, PublishRequest } from '../../../../core/project/index';
import { LATER_HISTORY, demoScenarioRequest, scenarioRequest } from '../../../support/project-scenarios';
import { LATER_CHANGE_FAMILIES, createDemoWithLaterChanges } from '../../../support/demo-later-changes';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { bundleProjectChild } from '../../../support/project-child-bundle';
import { observe, treeDigest } from '../../../support/project-state';
import type { ObservedState } from '../../../support/project-state';

// Kill the writer (a real child process, SIGKILL to itself) at every named
// failpoint, for a first publication, a later one, and one on the demo (whose
// history after its first checkpoint changes every scope, and whose
// interrupted publication changes ontology, configuration, knowledge and
// epistemic records); on reopen the selected generation is exactly the
// parent's (or uninitialized) before the CURRENT rename and exactly the new
// one's from it on.

const BATCH = 4;
let tmp: string;
let child: string;
type Scenario = 'first' | 'later' | 'demo';
const SCENARIOS: readonly Scenario[] = ['first', 'later', 'demo'];
const fixtures: Record<Scenario, { dir: string; before: ObservedState; after: ObservedState; log: readonly LineageRecord[] }> = {} as never;

/** A lineage record without its clock reading (the killed child sampled its own `published_at`). */
const timeless = (r: LineageRecord): Omit<LineageRecord, 'publishedAt'> & { publishedAt?: number } => ({ ...r, publishedAt: undefined });

interface ChildResult {
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  readonly stdout: string;
}

function runChild(args: readonly string[], failpoint: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], {
      env: { ...process.env, GF_FAILPOINT: failpoint, NODE_PATH: path.resolve('node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, stdout }));
  });
}

async function inBatches<T, R>(items: readonly T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await Promise.all(items.slice(i, i + BATCH).map(fn))));
  return out;
}

/** Opens a scenario's project as its writer does (the demo with its checkpoints' retention pins). */
function openFor(scenario: Scenario, dir: string): Promise<Project<Table>> {
  return scenario === 'demo' ? openCheckpointedProject(dir) : openProject<Table>(dir, { catalog: registryCatalog });
}

/** The publication the child makes in `scenario`, on `project`'s CURRENT (`parent`). */
function requestOf(scenario: Scenario, project: Project<Table>, parent: string | null): PublishRequest {
  return scenario === 'demo' ? demoScenarioRequest(project) : scenarioRequest(scenario, parent);
}

async function buildFixture(name: Scenario): Promise<void> {
  const dir = path.join(tmp, `fixture-${name}`);
  if (name === 'demo') {
    const changed = await createDemoWithLaterChanges(dir);
    expect([...changed].filter((f) => LATER_CHANGE_FAMILIES.includes(f)).sort()).toEqual([...LATER_CHANGE_FAMILIES].sort());
  } else {
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    if (name === 'later') for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
  }
  const before = await observe(dir);
  const ref = path.join(tmp, `reference-${name}`);
  fs.cpSync(dir, ref, { recursive: true });
  const rp = await openFor(name, ref);
  await rp.publish(requestOf(name, rp, rp.current()?.generationUuid ?? null));
  const after = await observe(ref);
  if (name === 'demo') {
    // The interrupted publication itself changes ontology, configuration, knowledge and epistemic records.
    const was = new Map(before.participants.map((p) => [p.family, p.sha256]));
    const changed = after.participants.filter((p) => was.get(p.family) !== p.sha256).map((p) => p.family);
    expect(changed.sort()).toEqual(['epistemic/hypothesis', 'knowledge/evidence_link', 'workspace/configuration', 'workspace/ontology']);
  }
  fixtures[name] = { dir, before, after, log: readLineage(ref).records };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-crash-'));
  child = await bundleProjectChild(tmp);
  for (const scenario of SCENARIOS) await buildFixture(scenario);
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const PUBLISH_POINTS = FAILPOINT_NAMES.filter((n) => n !== 'project.after_format_fsync' && n !== 'project.after_container_dir_fsync');
const GC_POINTS: readonly FailpointName[] = ['project.after_gc_move', 'project.after_gc_delete'];

async function checkReopen(dir: string, name: FailpointName, scenario: Scenario): Promise<void> {
  const f = fixtures[scenario];
  const expected = committedAt(name) ? f.after : f.before;
  const seen = await observe(dir); // opens: FORMAT, CURRENT, lease, digest, then journal recovery
  expect({ failpoint: name, ...seen }).toEqual({ failpoint: name, ...expected });
  // The lineage log after recovery: exactly one record per generation that became CURRENT, in order, chain
  // verified (readLineage throws otherwise), no bytes after the last line; the new record only if committed.
  const log = readLineage(dir);
  const want = committedAt(name) ? f.log : f.log.slice(0, -1);
  expect({ failpoint: name, torn: log.tornBytes, records: log.records.map(timeless) }).toEqual({ failpoint: name, torn: 0, records: want.map(timeless) });
  expect(log.records.at(-1)?.generationUuid ?? null).toBe(seen.generationUuid);
  // Recovery is idempotent: a second pass changes no byte.
  const once = treeDigest(dir);
  const p = await openFor(scenario, dir);
  await p.recover();
  expect(treeDigest(dir)).toEqual(once);
  // The killed writer's lock is gone: the next writer publishes at once.
  const r = await p.publish({ ...requestOf(scenario, p, seen.generationUuid), transactionUuid: undefined });
  expect(p.current()?.generationUuid).toBe(r.generationUuid);
  const next = readLineage(dir).records;
  expect({ failpoint: name, seqs: next.map((x) => x.seq), last: next.at(-1)?.generationUuid }).toEqual({ failpoint: name, seqs: next.map((_, i) => i + 1), last: r.generationUuid });
  expect(next.length).toBe(want.length + 1);
}

describe('crash matrix: SIGKILL at every failpoint', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario} publication: parent before the CURRENT rename, new generation from it on`, { timeout: 240_000 }, async () => {
      const points = scenario === 'first' ? PUBLISH_POINTS.filter((n) => !GC_POINTS.includes(n)) : PUBLISH_POINTS;
      const results = await inBatches(points, async (name) => {
        const dir = path.join(tmp, `${scenario}-${name}`);
        fs.cpSync(fixtures[scenario].dir, dir, { recursive: true });
        return { name, dir, res: await runChild(['publish', dir, scenario], name) };
      });
      for (const { name, dir, res } of results) {
        expect({ name, signal: res.signal }).toEqual({ name, signal: 'SIGKILL' });
        await checkReopen(dir, name, scenario);
      }
    });
  }

  it('container creation: killed before the rename leaves no project, and creation then succeeds', { timeout: 120_000 }, async () => {
    const points: FailpointName[] = ['project.after_format_fsync', 'project.after_container_dir_fsync'];
    const results = await inBatches(points, async (name) => {
      const dir = path.join(tmp, `create-${name}`);
      return { name, dir, res: await runChild(['create', dir], name) };
    });
    for (const { name, dir, res } of results) {
      expect({ name, signal: res.signal }).toEqual({ name, signal: 'SIGKILL' });
      expect(fs.existsSync(dir)).toBe(false);
      const p = await createProject(dir);
      expect(p.state()).toBe('uninitialized');
    }
  });
});
