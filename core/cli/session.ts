// How a `gf` command reaches the engine: through the same dispatcher as IPC
// and the browser bridge (validation included), in-process. A command parses
// its arguments, calls `call(op, request)` and formats the typed result.
// Commands load this module through ./lazy-engine (never for `gf --help`).
import { resolve } from 'node:path';
import type { ChainBackend } from '../api/chain-operations';
import { createFacade, type Facade } from '../api/facade';
import { launchFacadeOptions, readLaunchConfig, type LaunchConfig } from '../api/launch-config';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';
import { unwrapEnvelope, type Envelope } from '../contract/wire';
import { GfError, isGfError } from '../errors';
import { CURRENT_SELECTOR } from '../contract/diff';

/**
 * The error of opening `directory` as the person typed it: "No workspace at PATH (no FORMAT file)".
 *
 * The engine's error carries no path (errors never do); the CLI knows the
 * path its user gave and puts it back into the sentence it prints.
 */
export function openErrorFor(e: unknown, directory: string): unknown {
  if (isGfError(e) && e.code === 'GF_NO_WORKSPACE') return new GfError('GF_NO_WORKSPACE', `No workspace at ${resolve(directory)} (no FORMAT file)`, e.details, e.committed);
  return e;
}

/** Names shown after "checkpoints:" in a not-found message (the rest are counted). */
const NAMES_SHOWN = 20;

/**
 * A `GF_CHECKPOINT_NOT_FOUND` that names what was not found and lists the valid names.
 *
 * The engine says only that a name is unknown; the CLI echoes the name(s) its
 * user typed that are not active checkpoints and lists the active ones.
 */
async function notFoundWithNames(e: GfError, typed: readonly string[], names: () => Promise<readonly string[]>): Promise<GfError> {
  let valid: readonly string[];
  try {
    valid = await names();
  } catch {
    return e;
  }
  const missing = typed.filter((t) => t !== CURRENT_SELECTOR && !valid.includes(t.normalize('NFC')));
  const shown = valid.slice(0, NAMES_SHOWN).map((n) => JSON.stringify(n));
  const more = valid.length > NAMES_SHOWN ? `, … ${valid.length - NAMES_SHOWN} more` : '';
  const list = valid.length === 0 ? 'this workspace has no checkpoints' : `checkpoints: ${shown.join(', ')}${more}`;
  const what = missing.length === 0 ? 'no such checkpoint' : `no checkpoint named ${missing.map((m) => JSON.stringify(m)).join(' or ')}`;
  return new GfError('GF_CHECKPOINT_NOT_FOUND', `${what} (${list})`, e.details, e.committed);
}

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

/** A `gf` command's launch configuration: its chain option over the environment, read once per command. */
function commandLaunch(choice: ChainChoice): LaunchConfig {
  return readLaunchConfig(choice.chainPostgresUrl === undefined ? {} : { chainPostgresUrl: choice.chainPostgresUrl }, process.env);
}

/** The chain backend the option or the environment selects (a Postgres URL also redacted, for people). */
export function chainTarget(choice: ChainChoice): { readonly backend: ChainBackend; readonly redacted: string | null } {
  const launch = commandLaunch(choice);
  return { backend: launch.chain, redacted: launch.chainRedacted };
}

async function run<N extends OperationName>(facade: Facade, op: N, request: object): Promise<OperationResult<N>> {
  return unwrapEnvelope((await facade.dispatcher.dispatch(op, request)) as Envelope<OperationResult<N>>);
}

function newFacade(choice: ChainChoice): Facade {
  return createFacade(launchFacadeOptions(commandLaunch(choice), 'library'));
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
    let project: string;
    try {
      ({ project } = await run(facade, opener, { path: resolve(directory) }));
    } catch (e) {
      throw openErrorFor(e, directory);
    }
    const activeNames = async (): Promise<string[]> => {
      const { decodeResult } = await import('../contract/arrow-decode');
      const page = await run(facade, 'checkpoints.list', { project, limit: 10_000 });
      return decodeResult(page.bytes, 'checkpoints.list', 'checkpoint@1').rows.map((r) => r.name);
    };
    const session: CliSession = {
      call: async (op, request) => {
        try {
          return await run(facade, op, { ...request, project });
        } catch (e) {
          if (!isGfError(e) || e.code !== 'GF_CHECKPOINT_NOT_FOUND') throw e;
          const r = request as { name?: unknown; from?: unknown; to?: unknown };
          const typed = [r.name, r.from, r.to].filter((v): v is string => typeof v === 'string');
          throw await notFoundWithNames(e, typed, activeNames);
        }
      },
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
