import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { withDemoCheckpoints } from './demo-checkpoints';
import { withDemoRevert } from './demo-revert';
import { GfError } from '../errors';
import { createProject, registryCatalog } from '../project/index';
import type { PublishResult } from '../project/index';
import type { DemoLedgerLink } from './demo-ledgers';
import { writeDemoChain } from './ledgers';
import { DEMO_EPOCH_US, demoClock, demoUuid, rngFor } from './rng';
import { DEMO_STEPS } from './steps';
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
  const work = path.join(path.dirname(target), `.${path.basename(target)}.gf-demo-${randomBytes(8).toString('hex')}`);
  try {
    const built = await buildDemo(work, records, seed, steps);
    fs.renameSync(work, target);
    return built;
  } catch (e) {
    fs.rmSync(work, { recursive: true, force: true });
    throw e;
  }
}

async function buildDemo(dir: string, records: number, seed: number, steps: readonly DemoStep[]): Promise<DemoResult> {
  const project = await createProject<Table>(dir, { catalog: registryCatalog, retainAncestors: steps.length + 1 });
  const clock = demoClock();
  const state: DemoState = {
    nodes: { uuid: [], cls: [], label: [], props: [], created: [], updated: [] },
    events: [],
    assertions: [],
    assertionColumns: {},
    hypotheses: { uuid: [], status: [], statement: [], from: [], recorded: [] },
    supersessions: [],
    ontologyStrict: false,
  };
  const generations: { step: string; generationUuid: string; manifestSha256: string }[] = [];
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
      recordGeneration: (g) => generations.push({ step: step.id, generationUuid: g.generationUuid, manifestSha256: g.manifestSha256 }),
      publish: async (changes): Promise<PublishResult> => {
        const r = await project.publish({
          parent: project.current()?.generationUuid ?? null,
          changes,
          transactionUuid: demoUuid(seed, `txn/${step.id}/${generations.filter((g) => g.step === step.id).length}`),
          // The lineage log's time is the demo's clock too: the whole workspace stays a function of (records, seed).
          lineage: { publishedAt: Number(clock.now()) },
        });
        generations.push({ step: step.id, generationUuid: r.generationUuid, manifestSha256: r.manifestSha256 });
        return r;
      },
    };
    await step.run(ctx);
  }
  const ledgers = await writeDemoChain(
    dir,
    generations.map((g) => g.manifestSha256),
    new Date(Number(DEMO_EPOCH_US / 1000n)),
  );
  return { records, seed, generations, ledgers };
}
