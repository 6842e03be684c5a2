// How a `gf` command reaches the engine: through the same dispatcher as IPC
// and the browser bridge (validation included), in-process. A command parses
// its arguments, calls `call(op, request)` and formats the typed result.
import { resolve } from 'node:path';
import { createFacade, type Facade } from '../api/facade';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';
import { unwrapEnvelope, type Envelope } from '../contract/wire';

/** Requests without the session handle (the session adds it). */
export type SessionInput<N extends OperationName> = Omit<OperationInput<N>, 'project'>;

/** One open project of a CLI command. */
export interface CliSession {
  /** Dispatches one operation on the open project; resolves to its typed result or throws its typed error. */
  call<N extends OperationName>(op: N, request: SessionInput<N>): Promise<OperationResult<N>>;
  /** Dispatches an operation that takes no project handle (views, cancellation). */
  callRaw<N extends OperationName>(op: N, request: OperationInput<N>): Promise<OperationResult<N>>;
  close(): Promise<void>;
}

async function run<N extends OperationName>(facade: Facade, op: N, request: object): Promise<OperationResult<N>> {
  return unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

/**
 * Opens `directory` (relative to the working directory) through `project.open`
 * and runs `fn` with a session; always releases every view and lease.
 */
export async function withProject<T>(directory: string, fn: (session: CliSession) => Promise<T>): Promise<T> {
  const facade = createFacade({ mode: 'library' });
  try {
    const { project } = await run(facade, 'project.open', { path: resolve(directory) });
    const session: CliSession = {
      call: (op, request) => run(facade, op, { ...request, project }),
      callRaw: (op, request) => run(facade, op, request),
      close: () => facade.close(),
    };
    return await fn(session);
  } finally {
    await facade.close();
  }
}
