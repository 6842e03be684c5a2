// `gf doctor [--repair]`: parse, dispatch `project.doctor`, format.
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { CliIo } from './io';
import { cliEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { projectOption } from './project-option';

interface DoctorOpts extends OutputFlags {
  readonly project: string;
  readonly repair?: boolean;
}

/**
 * `gf doctor [--repair]`: a read-only report of every anomaly with its path and a safe remedy.
 *
 * `--repair` removes the leftovers of killed and refused writes (the recovery
 * protocol and the cleanup the next publication would run: temps, journals,
 * trash, unpublished and retired generations, orphaned objects, the lineage
 * log's tail, torn cache entries) and rebuilds a missing CURRENT from the
 * newest verified generation, under the writer lock; then reports what it
 * repaired and what is left.
 */
export function registerDoctorCommand(program: Command, io: CliIo): void {
  withOutputOptions(
    program
      .command('doctor')
      .description('check a workspace: every anomaly with its path and a safe remedy (read-only; --repair removes the leftovers of killed and refused writes)')
      .addOption(projectOption())
      .option('--repair', 'remove the leftovers the next write would clean (under the writer lock), and rebuild a missing CURRENT'),
  ).action(async (opts: DoctorOpts) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    const { resolve } = await import('node:path');
    const report = await e.withFacade((call) => call('project.doctor', { path: resolve(opts.project), ...(opts.repair === true ? { repair: true } : {}) }));
    const text = (): string => {
      const lines: string[] = [];
      if (report.rebuilt_current !== null) lines.push(`repaired: CURRENT now names generation ${report.rebuilt_current}\n`);
      for (const a of report.repaired) lines.push(`repaired: ${a.path}: ${a.problem}\n`);
      if (report.anomalies.length === 0) lines.push('no anomalies\n');
      for (const a of report.anomalies) lines.push(`${a.path}: ${a.problem} — ${a.remedy}\n`);
      return lines.join('');
    };
    e.writeJsonResult(io, format, report, text, (r) => r.anomalies.map((a) => ({ ...a })));
    // A report with anomalies is a failed check (scripts and CI see it), after the report itself is printed.
    if (report.anomalies.length > 0) {
      const n = report.anomalies.length;
      throw new GfError('GF_PROJECT_CORRUPT', `gf doctor found ${n} ${n === 1 ? 'anomaly' : 'anomalies'}; see the report for each path and its remedy`, {});
    }
  });
}
