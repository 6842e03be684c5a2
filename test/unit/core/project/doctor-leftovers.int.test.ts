import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { DEFAULT_CONFIGURATION } from '../../../../core/participants/document-values';
import { configurationDocumentBytes } from '../../../../core/participants/workspace-bytes';
import { tryExclusive } from '../../../../core/project/sqlite-lock';
import { gf } from '../../../support/cli-run';
import { ensureCliBundle } from '../../../../scripts/build-cli.mjs';

// `gf doctor` lists every leftover the next write would clean, each with its
// kind, and exits 1; `gf doctor --repair` removes exactly those (under the
// writer lock), the next doctor exits 0, and publishing still works. Each
// leftover is made for real: a `gf publish` child SIGKILLed at a failpoint, a
// refused publish, a diff's caches torn on disk.

interface Anomaly {
  path: string;
  problem: string;
  remedy: string;
  repairable: boolean;
  leftover: string | null;
}
interface Report {
  anomalies: Anomaly[];
  rebuilt_current: string | null;
  repaired: Anomaly[];
}

let base: string;
let demo: string;
let config: string;
let serial = 0;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-doctor-leftovers-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  await ensureCliBundle();
  config = path.join(base, 'configuration.json');
  // The demo ends with a strict ontology: its configuration names the same mode.
  fs.writeFileSync(config, configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, ontology_mode: 'strict', embedding_configuration: { model_id: 'leftovers' } }));
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function copyDemo(): string {
  const dir = path.join(base, `w${serial++}`);
  fs.cpSync(demo, dir, { recursive: true });
  return dir;
}

/** `gf publish` of the configuration in a real child process, with one failpoint armed. */
function publishChild(dir: string, failpoint: string | undefined, file = config): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    if (failpoint === undefined) delete env['GF_FAILPOINT'];
    else env['GF_FAILPOINT'] = failpoint;
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), 'publish', '--project', dir, '--family', 'workspace/configuration', '--file', file], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, err }));
  });
}

/** `gf ARGS --project DIR` in a real child process, with one failpoint armed. */
function gfChild(dir: string, failpoint: string, args: readonly string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), ...args, '--project', dir], { env: { ...process.env, GF_FAILPOINT: failpoint }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, err }));
  });
}

/** Every file and directory under `dir`, relative, sorted. */
function tree(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel === '' ? ent.name : `${rel}/${ent.name}`;
    out.push(r);
    if (ent.isDirectory()) out.push(...tree(dir, r));
  }
  return out.sort();
}

async function doctor(dir: string, repair = false): Promise<{ code: number; report: Report; err: string }> {
  const r = await gf('doctor', '--project', dir, '--json', ...(repair ? ['--repair'] : []));
  return { code: r.code, report: JSON.parse(r.out) as Report, err: r.err };
}

/** Kinds labelled or rewritten in place by the repair (the rest are removed). */
const KEPT_IN_PLACE = new Set(['lineage_tail']);

/**
 * The whole contract on one workspace: doctor lists exactly `kinds` (every anomaly a repairable leftover)
 * and exits 1; `--repair` exits 0, reports each as repaired and removes exactly those paths; the next doctor
 * is clean; a publication and a checkpoint then work and leave nothing behind.
 */
async function expectRepaired(dir: string, kinds: readonly string[]): Promise<Anomaly[]> {
  const found = await doctor(dir);
  expect({ code: found.code, err: found.err.split('\n')[0] }).toEqual({ code: 1, err: expect.stringMatching(/^GF_PROJECT_CORRUPT: gf doctor found \d+ anomal/) as unknown as string });
  expect([...new Set(found.report.anomalies.map((a) => a.leftover))].sort()).toEqual([...kinds].sort());
  expect(found.report.anomalies.filter((a) => !a.repairable)).toEqual([]);
  const before = tree(dir);
  const repaired = await doctor(dir, true);
  expect({ code: repaired.code, anomalies: repaired.report.anomalies }).toEqual({ code: 0, anomalies: [] });
  expect(repaired.report.repaired.map((a) => a.path).sort()).toEqual(found.report.anomalies.map((a) => a.path).sort());
  const after = new Set(tree(dir));
  const gone = before.filter((p) => !after.has(p));
  const under = (p: string, a: Anomaly): boolean => p === a.path || p.startsWith(`${a.path}/`);
  // Nothing removed that doctor did not list as a leftover (an emptied fan-out directory goes with its last object)…
  expect(gone.filter((p) => !found.report.anomalies.some((a) => under(p, a)) && !/^objects\/sha256\/[0-9a-f]{2}$/.test(p))).toEqual([]);
  // …and every listed leftover removed, except what is rewritten in place (CURRENT's journal, the lineage log).
  const current = (JSON.parse(fs.readFileSync(path.join(dir, 'CURRENT'), 'utf8')) as { generation_uuid: string }).generation_uuid;
  for (const a of found.report.anomalies) {
    if (KEPT_IN_PLACE.has(a.leftover as string)) continue;
    // An interrupted journal of CURRENT's generation is labelled PUBLISHED and stays; any other is labelled ABORTED and pruned with its generation.
    if (a.leftover === 'interrupted_journal' && after.has(a.path)) {
      expect(JSON.parse(fs.readFileSync(path.join(dir, a.path), 'utf8'))).toMatchObject({ generation_uuid: current, state: 'PUBLISHED' });
      continue;
    }
    expect({ path: a.path, exists: after.has(a.path) }).toEqual({ path: a.path, exists: false });
  }
  expect((await doctor(dir)).code).toBe(0);
  const published = await publishChild(dir, undefined);
  expect({ code: published.code, err: published.err }).toEqual({ code: 0, err: '' });
  expect((await gf('checkpoint', 'create', `after repair ${serial}`, '--project', dir)).code).toBe(0);
  const last = await doctor(dir);
  expect([last.code, last.report.anomalies]).toEqual([0, []]);
  return found.report.anomalies;
}

describe('gf doctor lists every leftover of a killed write with its kind; --repair removes exactly those', () => {
  const KILLS: readonly [string, readonly string[]][] = [
    ['project.after_participant_fsync', ['interrupted_journal', 'incomplete_generation']],
    ['project.after_participant_dir_fsync', ['interrupted_journal', 'incomplete_generation', 'orphaned_object']],
    ['project.after_manifest_fsync', ['interrupted_journal', 'unpublished_generation', 'orphaned_object']],
    ['project.after_current_temp_write', ['interrupted_journal', 'unpublished_generation', 'temp_file', 'orphaned_object']],
    ['project.after_current_replace', ['interrupted_journal', 'lineage_tail']],
    ['project.after_gc_move', ['trash', 'finished_journal', 'orphaned_object']],
  ];
  for (const [failpoint, kinds] of KILLS) {
    it(`a publish SIGKILLed at ${failpoint}: ${kinds.join(', ')}`, { timeout: 120_000 }, async () => {
      const dir = copyDemo();
      const killed = await publishChild(dir, failpoint);
      expect({ failpoint, signal: killed.signal }).toEqual({ failpoint, signal: 'SIGKILL' });
      const found = await expectRepaired(dir, kinds);
      if (failpoint === 'project.after_current_temp_write') expect(found.find((a) => a.leftover === 'temp_file')?.path).toMatch(/^current-tmp-/);
      if (failpoint === 'project.after_participant_fsync') {
        // The killed writer's staged bytes are inside its private generation directory (removed with it).
        const gen = found.find((a) => a.leftover === 'incomplete_generation')?.path as string;
        expect(gen).toMatch(/^generations\//);
      }
    });
  }

  // A `gf checkpoint create` killed inside the registry's pair commit: before its intent exists, only its
  // private next files are left; after, the intent (with or without its temps), which the next registry
  // write completes or rolls back. `--repair` runs that recovery now.
  const REGISTRY_KILLS: readonly [string, readonly string[]][] = [
    ['checkpoint.registry.after_file_fsync', ['temp_file']],
    ['checkpoint.registry.after_intent_install', ['registry_change']],
    ['checkpoint.registry.before_replace', ['registry_change']],
    ['checkpoint.registry.after_replace', ['registry_change']],
    ['checkpoint.registry.after_checksum_replace', ['registry_change']],
  ];
  for (const [failpoint, kinds] of REGISTRY_KILLS) {
    it(`a checkpoint create SIGKILLed at ${failpoint}: ${kinds.join(', ')}`, { timeout: 120_000 }, async () => {
      const dir = copyDemo();
      const killed = await gfChild(dir, failpoint, ['checkpoint', 'create', `killed at ${failpoint}`]);
      expect({ failpoint, signal: killed.signal }).toEqual({ failpoint, signal: 'SIGKILL' });
      const found = await expectRepaired(dir, kinds);
      for (const a of found) expect(a.path).toMatch(/^checkpoints\//);
    });
  }

  it('a revert receipt temp a killed revert left: temp_file, removed by --repair', { timeout: 120_000 }, async () => {
    const dir = copyDemo();
    fs.mkdirSync(path.join(dir, 'receipts/revert'), { recursive: true });
    const temp = `receipts/revert/tmp-${crypto.randomUUID()}.json`;
    fs.writeFileSync(path.join(dir, temp), '{"torn');
    const found = await expectRepaired(dir, ['temp_file']);
    expect(found.map((a) => a.path)).toEqual([temp]);
  });

  it('a refused publish: its ABORTED journal is a finished_journal leftover (its objects were taken back at refusal)', { timeout: 120_000 }, async () => {
    const dir = copyDemo();
    const bad = path.join(base, 'bad-configuration.json');
    fs.writeFileSync(bad, '{"not": "a configuration"}');
    const refused = await publishChild(dir, undefined, bad);
    expect({ code: refused.code, err: refused.err.slice(0, 14) }).toEqual({ code: 1, err: 'GF_VALIDATION:' });
    const found = await expectRepaired(dir, ['finished_journal']);
    expect(found.map((a) => a.path)).toEqual([expect.stringMatching(/^transactions\/[0-9a-f-]{36}\.json$/)]);
  });

  it('torn and foreign derived caches (validation records, record indexes, record-set fingerprints, change lists, temps, a FIFO): cache_entry, never "unexpected"', { timeout: 120_000 }, async () => {
    const dir = copyDemo();
    // A whole-family diff builds record indexes and change lists for real.
    expect((await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--stat', '--project', dir)).code).toBe(0);
    const idxDir = path.join(dir, 'cache/index');
    const [idx, idx2] = fs.readdirSync(idxDir).sort();
    const valDir = path.join(dir, 'cache/validation');
    const [record] = fs.readdirSync(valDir).sort();
    // The summary's record-set fingerprints (cache/record-sets), made by a summary diff: one torn, one under another object's key.
    expect((await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--project', dir)).code).toBe(0);
    const rsDir = path.join(dir, 'cache/record-sets');
    const [fp1, fp2] = fs.readdirSync(rsDir).sort();
    fs.truncateSync(path.join(rsDir, fp1 as string), 20);
    const foreign = `${'f'.repeat(64)}.fp`;
    fs.copyFileSync(path.join(rsDir, fp2 as string), path.join(rsDir, foreign));
    const chDir = path.join(dir, 'cache/diff/changes');
    const arrow = fs.readdirSync(chDir).find((n) => n.endsWith('.arrow')) as string;
    // Torn files as a killed write leaves them (a prefix), a bit flip, a killed writer's temps, a FIFO.
    fs.truncateSync(path.join(idxDir, idx as string), 40);
    fs.writeFileSync(path.join(idxDir, `${idx2 as string}.0a1b2c3d4e5f.tmp`), 'partial');
    fs.truncateSync(path.join(valDir, record as string), 30);
    const data = fs.readFileSync(path.join(chDir, arrow));
    data[data.length >> 1] = (data[data.length >> 1] as number) ^ 1;
    fs.writeFileSync(path.join(chDir, arrow), data);
    execFileSync('mkfifo', [path.join(valDir, `${'e'.repeat(64)}.json`)]);
    fs.writeFileSync(path.join(dir, 'cache/diff/.page-token.0011223344556677.tmp'), 'x');
    const found = await expectRepaired(dir, ['cache_entry']);
    expect(found.map((a) => a.path).sort()).toEqual(
      [
        `cache/index/${idx as string}`,
        `cache/index/${idx2 as string}.0a1b2c3d4e5f.tmp`,
        `cache/validation/${record as string}`,
        `cache/validation/${'e'.repeat(64)}.json`,
        `cache/diff/changes/${arrow}`,
        `cache/diff/changes/${arrow.replace(/\.arrow$/, '.sha256')}`,
        'cache/diff/.page-token.0011223344556677.tmp',
        `cache/record-sets/${fp1 as string}`,
        `cache/record-sets/${foreign}`,
      ].sort(),
    );
    // The sound index stays, and a diff afterwards still answers.
    expect(fs.existsSync(path.join(idxDir, idx2 as string))).toBe(true);
    expect(fs.existsSync(path.join(rsDir, fp2 as string))).toBe(true);
    expect((await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--stat', '--project', dir)).code).toBe(0);
  });

  it('project.doctor over the dispatcher: the same leftovers, repaired under the writer lock (refused while another writer holds it)', { timeout: 120_000 }, async () => {
    const dir = copyDemo();
    const killed = await publishChild(dir, 'project.after_participant_dir_fsync');
    expect(killed.signal).toBe('SIGKILL');
    const facade = createFacade({ mode: 'library' });
    try {
      const call = async (request: object): Promise<{ ok: true; value: Report } | { ok: false; error: { code: string } }> =>
        (await facade.dispatcher.dispatch('project.doctor', request)) as unknown as { ok: true; value: Report } | { ok: false; error: { code: string } };
      const seen = await call({ path: dir });
      if (!seen.ok) throw new Error(seen.error.code);
      expect(seen.value.anomalies.map((a) => a.leftover).sort()).toEqual(['incomplete_generation', 'interrupted_journal', 'orphaned_object']);
      // Another writer holds the lock: the repair is refused and removes nothing.
      const before = tree(dir);
      const writer = tryExclusive(path.join(dir, 'locks/writer.lock'), 'locks/writer.lock');
      if (writer.kind !== 'held') throw new Error('the writer lock should be free');
      try {
        const busy = await call({ path: dir, repair: true });
        expect(busy.ok ? null : busy.error.code).toBe('GF_WRITER_BUSY');
        expect(tree(dir)).toEqual(before);
      } finally {
        writer.lock.release();
      }
      const fixed = await call({ path: dir, repair: true });
      if (!fixed.ok) throw new Error(fixed.error.code);
      expect(fixed.value.anomalies).toEqual([]);
      expect(fixed.value.repaired.map((a) => a.path).sort()).toEqual(seen.value.anomalies.map((a) => a.path).sort());
    } finally {
      await facade.close();
    }
  });
});
