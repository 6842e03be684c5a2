// The I/O fault walk's writer in its own process, started from scratch: the
// fallback where no zygote can fork one (fault-zygote.ts needs a C compiler
// and Node's headers; see fs-layer.int.test.ts). It loads first (the bundle,
// better-sqlite3, Arrow), then waits for its one job on stdin, so a walk can
// start the next child while it checks the last one. The job is one JSON line,
// {"op": <operation>, "dir": <workspace>, "spec": "<n>:kill" | undefined}: with
// a spec it ends itself (SIGKILL) at the n-th filesystem call of the operation.
// Prints one JSON line when it survives.
import { toWireError } from '../../core/errors';
import { armIoFaultForTesting, ioCallsForTesting } from '../../core/project/fs-layer';
import { runOperation } from './fault-ops';
import type { FaultOperation } from './fault-ops';

interface Job {
  readonly op: FaultOperation;
  readonly dir: string;
  readonly spec?: string;
}

function job(): Promise<Job> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (c: Buffer): void => {
      buf += c.toString();
      const end = buf.indexOf('\n');
      if (end < 0) return;
      process.stdin.off('data', onData);
      process.stdin.destroy();
      resolve(JSON.parse(buf.slice(0, end)) as Job);
    };
    process.stdin.on('data', onData);
    process.stdin.once('end', () => reject(new Error('stdin closed before a job')));
  });
}

async function run(): Promise<void> {
  const { op, dir, spec } = await job();
  armIoFaultForTesting(spec); // counting starts here: the same calls the in-process walk counts
  await runOperation(op, dir);
  process.stdout.write(`${JSON.stringify({ ok: true, calls: ioCallsForTesting() })}\n`);
}

run().catch((e: unknown) => {
  process.stdout.write(`${JSON.stringify({ ok: false, calls: ioCallsForTesting(), error: toWireError(e) })}\n`);
});
