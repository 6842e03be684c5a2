// A revert in its own process, for the SIGKILL failpoint matrix.
// Usage: node revert-child.cjs <dir> <name> <reason> <key> <clock-micros>. Prints one JSON line.
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { toWireError } from '../../../../core/errors';
import { RevertEngine } from '../../../../core/revert/index';

async function run(): Promise<void> {
  const [dir, name, reason, key, at] = process.argv.slice(2);
  if (dir === undefined || at === undefined) throw new Error('usage');
  const project = await openCheckpointedProject(dir);
  const receipt = await new RevertEngine(project, { clock: () => Number(at) }).revertToCheckpoint({ name, reason, idempotencyKey: key });
  process.stdout.write(`${JSON.stringify({ ok: true, receipt })}\n`);
}

run().catch((e: unknown) => {
  process.stdout.write(`${JSON.stringify({ ok: false, error: toWireError(e) })}\n`);
});
