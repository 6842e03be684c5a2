// How a `gf` command reaches the engine: through the same dispatcher as IPC
// and the browser bridge (validation included), in-process. A command parses
// its arguments, calls `call(op, request)` and formats the typed result.
// Commands load this module through ./lazy-engine (never for `gf --help`).
import { resolve } from 'node:path';
import { chainBackendOf, type ChainBackend } from '../api/chain-operations';
import { createFacade, type Facade } from '../api/facade';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';
import { unwrapEnvelope, type Envelope } from '../contract/wire';

/** Requests without the session handle (the session adds it). */
export type SessionInput<N extends OperationName> = Omit<OperationInput<N>, 'project'>;

/** Dispatches one operation as given (no handle added); resolves to its typed result or throws its typed error. */
export type RawCall = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/** One open project (or ledger directory) of a CLI command. */
export interface CliSession {
  /** Dispatches one operation on the open project; resolves to its typed result or throws its typed error. */
  call<N extends OperationName>(op: N, request: SessionInput<N>): Promise<OperationResult<N>>;
  /** Dispatches an operation that takes no project handle (views, cancellation). */
  callRaw: RawCall;
  close(): Promise<void>;
}

/** Where a command's chain ledgers live: the option (or `GF_CHAIN_POSTGRES_URL`) names a shared PostgreSQL store. */
export interface ChainChoice {
  /** `--chain-postgres-url` as given. */
  readonly chainPostgresUrl?: string;
}

/** The chain backend the option or the environment selects (a Postgres URL also redacted, for people). */
export function chainTarget(choice: ChainChoice): { readonly backend: ChainBackend; readonly redacted: string | null } {
  return chainBackendOf(choice.chainPostgresUrl, process.env);
}

async function run<N extends OperationName>(facade: Facade, op: N, request: object): Promise<OperationResult<N>> {
  return unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

function newFacade(choice: ChainChoice): Facade {
  return createFacade({ mode: 'library', chain: chainTarget(choice).backend });
}

/** Runs `fn` with the dispatcher alone (operations that take a path or nothing); always releases everything. */
export async function withFacade<T>(fn: (call: RawCall) => Promise<T>, choice: ChainChoice = {}): Promise<T> {
  const facade = newFacade(choice);
  try {
    return await fn((op, request) => run(facade, op, request));
  } finally {
    await facade.close();
  }
}

/** Runs `fn` with a session whose handle `open` returned (`project.open`, `chain.open`). */
async function withHandle<T>(opener: 'project.open' | 'chain.open', directory: string, fn: (session: CliSession) => Promise<T>, choice: ChainChoice): Promise<T> {
  const facade = newFacade(choice);
  try {
    const { project } = await run(facade, opener, { path: resolve(directory) });
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

/**
 * Opens `directory` (relative to the working directory) through `project.open`
 * and runs `fn` with a session; always releases every view and lease.
 */
export function withProject<T>(directory: string, fn: (session: CliSession) => Promise<T>): Promise<T> {
  return withHandle('project.open', directory, fn, {});
}

/**
 * Opens the chain ledgers of `directory` (a project or any directory with
 * `chain/`) through `chain.open`, or the shared PostgreSQL store the choice
 * selects, and runs `fn` with a session for the `chain.*` operations.
 */
export function withLedgers<T>(directory: string, choice: ChainChoice, fn: (session: CliSession) => Promise<T>): Promise<T> {
  return withHandle('chain.open', directory, fn, choice);
}
