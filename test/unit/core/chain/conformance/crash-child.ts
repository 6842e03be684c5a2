import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TransitionEvent } from '../../../../../core/chain/event';

/**
 * Runs lock-crash.child.ts (`lock`, one append inside `fn`, "ack" once it resolved, `fn` never settles)
 * and kills it with SIGKILL right after the ack; resolves when it is dead. Rejects when it exits by itself.
 */
export async function crashInsideLock(args: readonly string[], event: TransitionEvent, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'lock-crash.child.ts'), ...args, JSON.stringify(event)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes(`ack ${event.transition_id}\n`)) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the crash child exited by itself (${code ?? signal}): ${err.slice(0, 2000)}`));
    });
  });
  if (child.exitCode === null && child.signalCode === null) await new Promise<void>((r) => child.once('exit', () => r()));
}
