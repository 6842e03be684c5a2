// The operations the I/O fault walk interrupts, shared by the in-process walk
// (error mode) and the child process (kill mode), plus what a reader sees.
import type { Table } from 'apache-arrow';
import { main } from '../../core/cli/main';
import { openCheckpointedProject } from '../../core/checkpoints/checkpoints';
import { CheckpointRegistryStore } from '../../core/checkpoints/registry-store';
import { openProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import type { Project } from '../../core/project/index';
import { LATER_HISTORY, scenarioRequest } from './project-scenarios';

/** Operation names of the walk. */
export const FAULT_OPERATIONS = ['publish-first', 'publish-later', 'revert', 'checkpoint-create', 'checkpoint-delete', 'cleanup', 'recovery'] as const;
/** One operation. */
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];

const KEYS: Partial<Record<FaultOperation, string>> = {
  revert: '018f0f4e-7b8c-7000-8000-00000000c001',
  'checkpoint-create': '018f0f4e-7b8c-7000-8000-00000000c002',
  'checkpoint-delete': '018f0f4e-7b8c-7000-8000-00000000c003',
};

/** Thrown by a CLI operation that exited non-zero: carries the printed code and `committed`. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    readonly committed: boolean | null,
    readonly text: string,
  ) {
    super(text);
  }
}

async function cli(argv: string[]): Promise<void> {
  let err = '';
  const code = await main(argv, { stdout: () => undefined, stderr: (c) => void (err += c) });
  if (code === 0) return;
  const m = /(GF_[A-Z_]+|[a-z_]+\.[a-z_.]+)/.exec(err);
  const c = /committed: (true|false)/.exec(err);
  throw new CliFailure(m?.[1] ?? 'unknown', c === null ? null : c[1] === 'true', err.trim());
}

/**
 * Runs one operation on `dir` (opened, recovered first, exactly as a user's command would).
 *
 * Throws what the operation throws (`GfError` with `committed`, or `CliFailure`).
 */
export async function runOperation(op: FaultOperation, dir: string): Promise<void> {
  switch (op) {
    case 'publish-first':
    case 'publish-later': {
      const p = await openProject<Table>(dir, { catalog: registryCatalog });
      // As `gf publish` does: the parent is read under the writer lock. A fresh transaction each run: the
      // operation after a committed fault is a new publication of the same content.
      const scenario = op === 'publish-first' ? 'first' : 'later';
      await p.withWriter((w) => w.publishAsync({ ...scenarioRequest(scenario, w.current()?.generationUuid ?? null), transactionUuid: undefined }));
      return;
    }
    case 'revert':
      return cli(['checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'walk', '--idempotency-key', KEYS.revert as string]);
    case 'checkpoint-create':
      return cli(['checkpoint', 'create', 'Walked', '--project', dir, '--description', 'fault walk', '--idempotency-key', KEYS['checkpoint-create'] as string]);
    case 'checkpoint-delete':
      return cli(['checkpoint', 'delete', 'Graph imported', '--project', dir, '--idempotency-key', KEYS['checkpoint-delete'] as string]);
    case 'cleanup': {
      const p = await openCheckpointedProject(dir, { retainAncestors: 0 });
      await p.cleanup();
      return;
    }
    case 'recovery': {
      const p = await openProject<Table>(dir, { catalog: registryCatalog, recover: false });
      await p.recover();
      return;
    }
  }
}

/** Builds the "later" fixture's history on a fresh project (the publish-later walk's starting point). */
export async function buildLaterHistory(p: Project<Table>): Promise<void> {
  for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
}

/** What a reader sees: CURRENT's participants (verified objects) and the active checkpoint names. */
export interface Visible {
  readonly participants: readonly string[];
  readonly checkpoints: readonly string[];
}

/** Opens `dir` (recovering), pins CURRENT, verifies every participant object, reads the registry. */
export async function visibleState(dir: string): Promise<Visible> {
  const p = await openProject<Table>(dir, { catalog: registryCatalog });
  let participants: string[] = [];
  if (p.state() === 'initialized') {
    const lease = p.lease();
    try {
      lease.verifyParticipants();
      // A revert's restoration record carries its own instant: compared by presence, every other family by content.
      participants = lease.manifest.participants.map((x) =>
        x.recordFamilyId === 'restoration_transition' ? `${x.capabilityId}/${x.recordFamilyId}` : `${x.capabilityId}/${x.recordFamilyId}=${x.contentSha256}`,
      );
    } finally {
      lease.release();
    }
  }
  const doc = new CheckpointRegistryStore(p.root).read().doc;
  const checkpoints = doc === null ? [] : doc.active.map((r) => r.name).sort();
  return { participants, checkpoints };
}
