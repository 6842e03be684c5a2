// How `gf threads` reaches the engine: a facade with no project, the
// LangGraph Postgres URL (if any) held in memory, the same dispatcher as IPC
// and the browser bridge.
import { createFacade } from '../api/facade';
import { launchFacadeOptions, readLaunchConfig } from '../api/launch-config';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';
import { unwrapEnvelope, type Envelope } from '../contract/wire';

/** Dispatches one operation; resolves to its typed result or throws its typed error. */
export type ThreadsCall = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/** Runs `fn` with a facade whose LangGraph Postgres source is `postgresUrl`; always closes it. */
export async function withThreads<T>(postgresUrl: string | undefined, fn: (call: ThreadsCall) => Promise<T>): Promise<T> {
  // The command chose its source: no URL means none (not the environment's), and `gf threads` reads no ledgers.
  const launch = readLaunchConfig({ langgraphPostgresUrl: postgresUrl ?? '', sharedLedgers: false }, process.env);
  const facade = createFacade(launchFacadeOptions(launch, 'library'));
  try {
    return await fn(async (op, request) => unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<typeof op>>));
  } finally {
    await facade.close();
  }
}
