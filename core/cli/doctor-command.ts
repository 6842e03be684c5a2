import path from 'node:path';
import type { Command } from 'commander';
import { SqliteCheckpointStore } from '../chain/sqlite/sqlite-store';
import { CheckpointRegistryStore } from '../checkpoints/registry-store';
import { GfError, isGfError } from '../errors';
import { diagnoseProject, repairProject } from '../project/doctor';
import type { Anomaly } from '../project/doctor';
import { FORMAT_BYTES } from '../project/formats';
import { readFileNoFollow } from '../project/durable-fs';
import type { CliIo } from './io';
import { projectOption } from './project-option';

interface DoctorOpts {
  readonly project: string;
  readonly repair?: boolean;
  readonly json?: boolean;
}

async function diagnose(root: string): Promise<Anomaly[]> {
  const format = readFileNoFollow(path.join(root, 'FORMAT'), 'FORMAT', 256);
  if (format === undefined || Buffer.compare(Buffer.from(format), Buffer.from(FORMAT_BYTES)) !== 0) {
    throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'not a project (no FORMAT)', {});
  }
  const out = diagnoseProject(root);
  try {
    new CheckpointRegistryStore(root).read();
  } catch (e) {
    out.push({ path: 'checkpoints/registry.json', problem: isGfError(e) ? e.message : 'the checkpoint registry cannot be read', remedy: 'restore checkpoints/ from a backup; cleanup deletes nothing while it is corrupt', repairable: false });
  }
  const store = new SqliteCheckpointStore(path.join(root, 'chain'));
  try {
    for (const l of await store.scanLedgers()) {
      if (l.kind === 'unreadable') out.push({ path: l.ledger, problem: `unreadable ledger (${l.cause})`, remedy: 'restore this ledger from a backup; the others verify independently', repairable: false });
    }
  } finally {
    await store.close();
  }
  return out;
}

/**
 * `gf doctor [--repair]`: a read-only report of every anomaly with its path and a safe remedy.
 *
 * `--repair` applies only the recovery protocol's remedies (leftover temps,
 * interrupted journals, trash, and a missing CURRENT rebuilt from the newest
 * verified generation), then reports what is left.
 */
export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command('doctor')
    .description('check a workspace: every anomaly with its path and a safe remedy (read-only; --repair applies the recovery remedies)')
    .addOption(projectOption())
    .option('--repair', 'apply only the remedies the recovery protocol defines')
    .option('--json', 'print JSON')
    .action(async (opts: DoctorOpts) => {
      const root = path.resolve(opts.project);
      const repaired = opts.repair === true ? repairProject(root) : undefined;
      const anomalies = await diagnose(root);
      if (opts.json === true) {
        io.stdout(`${JSON.stringify({ anomalies, rebuilt_current: repaired?.rebuiltCurrent ?? null })}\n`);
        return;
      }
      if (repaired?.rebuiltCurrent != null) io.stdout(`repaired: CURRENT now names generation ${repaired.rebuiltCurrent}\n`);
      if (anomalies.length === 0) io.stdout('no anomalies\n');
      for (const a of anomalies) io.stdout(`${a.path}: ${a.problem} — ${a.remedy}\n`);
    });
}
