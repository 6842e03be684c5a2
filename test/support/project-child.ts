// A writer or reader in its own process, for crash and lock tests.
// Usage: node --import tsx test/support/project-child.ts <mode> <dir> [scenario]
// Modes: create | publish <scenario> (first | later | demo) | hold-writer | hold-lease. Prints one JSON line.
import { createProject, openProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import { toWireError } from '../../core/errors';
import { openCheckpointedProject } from '../../core/checkpoints/checkpoints';
import { demoScenarioRequest, scenarioRequest } from './project-scenarios';

function out(v: unknown): void {
  process.stdout.write(`${JSON.stringify(v)}\n`);
}

/** What a holder keeps until it is killed: reachable from the module, so the collector never finalizes it. */
const held: unknown[] = [];

/**
 * Never settles, and stays reachable: a suspended frame awaiting a promise nothing references can be
 * collected, and with it the lock or lease it holds (its SQLite connection closes when finalized).
 */
function forever(): Promise<never> {
  const p = new Promise<never>((resolve) => held.push(resolve));
  held.push(p, setInterval(() => undefined, 1 << 30));
  return p;
}

async function run(): Promise<void> {
  const [mode, dir, scenario] = process.argv.slice(2);
  if (dir === undefined) throw new Error('usage');
  if (mode === 'create') {
    await createProject(dir);
    out({ ok: true });
    return;
  }
  // The demo has checkpoints: its writer sees their retention pins, as every surface's does.
  const project = scenario === 'demo' ? await openCheckpointedProject(dir) : await openProject(dir, { catalog: registryCatalog });
  if (mode === 'publish') {
    const request = scenario === 'demo' ? demoScenarioRequest(project) : scenarioRequest(scenario ?? 'first', project.current()?.generationUuid ?? null);
    const r = await project.publish(request);
    out({ ok: true, generationUuid: r.generationUuid });
    return;
  }
  if (mode === 'hold-writer') {
    await project.withWriter(async () => {
      out({ ready: true });
      await forever();
    });
    return;
  }
  if (mode === 'hold-lease') {
    held.push(project.lease());
    out({ ready: true, generationUuid: (held[0] as { generationUuid: string }).generationUuid });
    await forever();
  }
}

run().catch((e: unknown) => {
  out({ ok: false, error: toWireError(e) });
});
