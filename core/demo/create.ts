import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { withDemoCheckpoints } from './demo-checkpoints';
import { withDemoRevert } from './demo-revert';
import { GfError } from '../errors';
import { createProject } from '../project/index';
import { createLockFile, tryExclusive } from '../project/sqlite-lock';
import { registryCatalog } from '../participants/index';
import type { PublishResult } from '../project/index';
import type { DemoLedgerLink } from './demo-ledgers';
import { writeDemoChain } from './ledgers';
import { DEMO_EPOCH_US, demoClock, demoUuid, rngFor } from './rng';
import { DEMO_STEPS } from './steps';
import { NodeStore } from './graph-store';
import { AssertionStore } from './knowledge-store';
import { demoPublicationCatalog } from './demo-validation';
import { DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED, DEMO_MAX_RECORDS, DEMO_MIN_RECORDS } from './defaults';
import type { DemoContext, DemoState, DemoStep } from './steps';

export { DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED, DEMO_MAX_RECORDS, DEMO_MIN_RECORDS } from './defaults';

/** Options of `createDemoWorkspace`. */
export interface DemoOptions {
  readonly records?: number;
  readonly seed?: number;
  /** Steps appended after the built-in history (checkpoints, ledgers, a revert). */
  readonly extraSteps?: readonly DemoStep[];
}

/** What was built: one entry per step that published, in order. */
export interface DemoResult {
  readonly records: number;
  readonly seed: number;
  readonly generations: readonly { readonly step: string; readonly generationUuid: string; readonly manifestSha256: string }[];
  /** The ledgers' `patch_applied` transitions and the generation (`sha256:<manifest>`) each cites. */
  readonly ledgers: readonly DemoLedgerLink[];
}

/**
 * Builds the demo research workspace in `dir` through the public publish API.
 *
 * A pure function of (records, seed, steps): no wall clock, no ambient
 * randomness, so two runs give byte-identical objects and manifests. The
 * history keeps every generation (retention window covers it). The scripted
 * workflows' ledgers go to `<dir>/chain` (one chain deliberately tampered),
 * their patch steps citing the demo's generations in order.
 */
export async function createDemoWorkspace(dir: string, opts: DemoOptions = {}): Promise<DemoResult> {
  const records = opts.records ?? DEMO_DEFAULT_RECORDS;
  const seed = opts.seed ?? DEMO_DEFAULT_SEED;
  if (!Number.isSafeInteger(records) || records < DEMO_MIN_RECORDS || records > DEMO_MAX_RECORDS) {
    throw new GfError('GF_VALIDATION', 'records out of range', { min: DEMO_MIN_RECORDS, max: DEMO_MAX_RECORDS }, false);
  }
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw new GfError('GF_VALIDATION', 'seed must be an integer in [0, 2^32)', {}, false);
  }
  const steps = withDemoRevert(withDemoCheckpoints([...DEMO_STEPS, ...(opts.extraSteps ?? [])]));
  // Built in a private sibling and renamed into place: an interrupted run leaves no partial demo at `dir`.
  const target = path.resolve(dir);
  const existing = fs.lstatSync(target, { throwIfNoEntry: false });
  if (existing !== undefined && !(existing.isDirectory() && fs.readdirSync(target).length === 0)) {
    await createProject(target); // refuses a non-empty directory exactly as a project creation does, touching nothing
    throw new GfError('GF_VALIDATION', 'the demo directory must be absent or empty', { reason: 'exists' }, false);
  }
  const stem = `.${path.basename(target)}${DEMO_WORK_INFIX}`;
  removeAbandonedBuilds(path.dirname(target), stem);
  const work = path.join(path.dirname(target), `${stem}${randomBytes(8).toString('hex')}`);
  // The build's lock (a sibling, taken before the directory exists) tells a later run that this build is alive.
  const lockAbs = `${work}${LOCK_SUFFIX}`;
  createLockFile(lockAbs, path.basename(lockAbs));
  const held = tryExclusive(lockAbs, path.basename(lockAbs));
  if (held.kind !== 'held') throw new GfError('GF_IO', 'another demo build took over this one', { name: path.basename(work) });
  try {
    const built = await buildDemo(work, records, seed, steps);
    fs.renameSync(work, target);
    return built;
  } catch (e) {
    fs.rmSync(work, { recursive: true, force: true });
    throw e;
  } finally {
    held.lock.release();
    fs.rmSync(lockAbs, { force: true });
  }
}

/** Infix of a demo build's private sibling: `.<target name>.gf-demo-<16 hex>` (+ `.lock`). */
export const DEMO_WORK_INFIX = '.gf-demo-';
const LOCK_SUFFIX = '.lock';

/**
 * Removes what killed demo builds of the same target left beside it.
 *
 * A build holds an exclusive lock on `<work>.lock` from before its directory
 * exists until after it is renamed or removed, and a killed process's lock
 * goes with it: a sibling whose lock can be taken (or that has no lock file)
 * is abandoned and removed; one whose lock is busy belongs to a live build
 * and is left alone. Anything unexpected (not a directory, a lock that does
 * not open) is left alone too.
 */
function removeAbandonedBuilds(parent: string, stem: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return; // no parent yet: nothing left behind
  }
  const ids = new Set<string>();
  for (const name of names) {
    if (!name.startsWith(stem)) continue;
    const id = name.slice(stem.length).replace(/\.lock$/, '');
    if (/^[0-9a-f]{16}$/.test(id)) ids.add(id);
  }
  for (const id of ids) {
    const work = path.join(parent, `${stem}${id}`);
    const lockAbs = `${work}${LOCK_SUFFIX}`;
    let attempt: ReturnType<typeof tryExclusive>;
    try {
      attempt = tryExclusive(lockAbs, path.basename(lockAbs));
    } catch {
      continue;
    }
    if (attempt.kind === 'busy') continue;
    try {
      const st = fs.lstatSync(work, { throwIfNoEntry: false });
      if (st === undefined || st.isDirectory()) fs.rmSync(work, { recursive: true, force: true });
      if (attempt.kind === 'held') fs.rmSync(lockAbs, { force: true });
    } finally {
      if (attempt.kind === 'held') attempt.lock.release();
    }
  }
}

async function buildDemo(dir: string, records: number, seed: number, steps: readonly DemoStep[]): Promise<DemoResult> {
  const project = await createProject<Table>(dir, { catalog: registryCatalog, retainAncestors: steps.length + 1 });
  const clock = demoClock();
  const state: DemoState = {
    nodes: new NodeStore(rngFor(seed, 'node-uuids')),
    events: [],
    assertions: new AssertionStore(),
    hypotheses: { uuid: [], status: [], statement: [], from: [], recorded: [] },
    supersessions: [],
    ontologyStrict: false,
  };
  const generations: { step: string; generationUuid: string; manifestSha256: string }[] = [];
  // Streamed participant files live inside the private build directory, so an interrupted build removes them with it.
  const parts = path.join(dir, '.demo-parts');
  let partSeq = 0;
  for (const step of steps) {
    clock.advance(3600);
    const ctx: DemoContext = {
      project,
      seed,
      records,
      clock,
      rng: rngFor(seed, step.id),
      state,
      uuid: (label) => demoUuid(seed, `${step.id}/${label}`),
      partFile: (name) => {
        fs.mkdirSync(parts, { recursive: true });
        return path.join(parts, `${partSeq++}-${name}`);
      },
      recordGeneration: (g) => generations.push({ step: step.id, generationUuid: g.generationUuid, manifestSha256: g.manifestSha256 }),
      publish: async (changes): Promise<PublishResult> => {
        const r = await project.publish({
          parent: project.current()?.generationUuid ?? null,
          changes,
          transactionUuid: demoUuid(seed, `txn/${step.id}/${generations.filter((g) => g.step === step.id).length}`),
          // The lineage log's time is the demo's clock too: the whole workspace stays a function of (records, seed).
          lineage: { publishedAt: Number(clock.now()) },
          wrapCatalog: demoPublicationCatalog,
        });
        for (const c of changes) if (c.kind === 'put-file') fs.rmSync(c.path, { force: true });
        generations.push({ step: step.id, generationUuid: r.generationUuid, manifestSha256: r.manifestSha256 });
        return r;
      },
    };
    await step.run(ctx);
  }
  fs.rmSync(parts, { recursive: true, force: true });
  const ledgers = await writeDemoChain(
    dir,
    generations.map((g) => g.manifestSha256),
    new Date(Number(DEMO_EPOCH_US / 1000n)),
  );
  return { records, seed, generations, ledgers };
}
