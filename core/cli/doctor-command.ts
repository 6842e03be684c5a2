import path from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from './io';
import { projectOption } from './project-option';

interface DoctorOpts {
  readonly project: string;
  readonly repair?: boolean;
  readonly json?: boolean;
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
      const { diagnose, repairProject } = await import('./doctor-engine');
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
