// The I/O fault walk's writer in its own process: GF_IO_FAULT=<n>:kill ends it
// (SIGKILL to itself) at the n-th filesystem call of the operation.
// Usage: node fault-child.cjs <operation> <dir>. Prints one JSON line when it survives.
import { toWireError } from '../../core/errors';
import { armIoFaultForTesting, ioCallsForTesting } from '../../core/project/fs-layer';
import { runOperation } from './fault-ops';
import type { FaultOperation } from './fault-ops';

const [op, dir, spec] = process.argv.slice(2);

async function run(): Promise<void> {
  if (op === undefined || dir === undefined) throw new Error('usage');
  armIoFaultForTesting(spec); // counting starts here: the same calls the in-process walk counts
  await runOperation(op as FaultOperation, dir);
  process.stdout.write(`${JSON.stringify({ ok: true, calls: ioCallsForTesting() })}\n`);
}

run().catch((e: unknown) => {
  process.stdout.write(`${JSON.stringify({ ok: false, calls: ioCallsForTesting(), error: toWireError(e) })}\n`);
});
