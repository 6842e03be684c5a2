// How `gf threads` reaches the engine: a facade with no project, the
// LangGraph Postgres URL (if any) held in memory, the same dispatcher as IPC
// and the browser bridge.
import { createFacade } from '../api/facade';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';
import { unwrapEnvelope, type Envelope } from '../contract/wire';

/** Dispatches one operation; resolves to its typed result or throws its typed error. */
export type ThreadsCall = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/** Runs `fn` with a facade whose LangGraph Postgres source is `postgresUrl`; always closes it. */
export async function withThreads<T>(postgresUrl: string | undefined, fn: (call: ThreadsCall) => Promise<T>): Promise<T> {
  const facade = createFacade({ mode: 'library', langgraphPostgresUrl: postgresUrl ?? '' });
  try {
    return await fn(async (op, request) => unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<typeof op>>));
  } finally {
    await facade.close();
  }
}
