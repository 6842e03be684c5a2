// One launch configuration: what a surface (Electron main, `gf serve`, a `gf`
// command, `npm start`'s browser fallback) reads from its arguments and its
// environment, read once at launch, and the facade options built from it. The
// facade itself reads no environment. Postgres URLs are held here in memory
// only: never written, logged or put into an error (the chain URL's redacted
// form is the one to show).
import { resolve } from 'node:path';
import { appConfigDir } from '../actor/actor-store';
import { resolveChainPostgresTarget } from '../chain/postgres/postgres-config';
import { LANGGRAPH_POSTGRES_URL_ENV } from '../contract/threads';
import type { ChainBackend } from './chain-operations';
import type { FacadeOptions, SurfaceMode } from './facade';

/** The environment variable naming the workspace the desktop app opens at launch (as `--project` does). */
export const PROJECT_ENV = 'GF_PROJECT';

/** A launch's environment (`process.env` at the entry point; tests pass their own). */
export type LaunchEnv = Readonly<Record<string, string | undefined>>;

/** What the surface's own arguments said (unset: the environment decides). */
export interface LaunchArguments {
  /** The workspace to open at launch, as typed (relative to the working directory). */
  readonly project?: string;
  /** `--chain-postgres-url`: the shared PostgreSQL ledger store (else `GF_CHAIN_POSTGRES_URL`). */
  readonly chainPostgresUrl?: string;
  /** Agent threads' LangGraph Postgres URL (else `GF_LANGGRAPH_POSTGRES_URL`); empty: none, whatever the environment says. */
  readonly langgraphPostgresUrl?: string;
  /** Agent threads: the SQLite database the screen opens first, as typed. */
  readonly langgraphSqlite?: string;
  /**
   * False: the chain ledgers are each project's SQLite ones and the
   * environment's shared store is not consulted (`gf threads` reads no
   * ledgers; `npm start`'s browser fallback never offered them). Default true.
   */
  readonly sharedLedgers?: boolean;
}

/** The launch configuration: everything the facade and the launcher need, read once. */
export interface LaunchConfig {
  /** The workspace to open at launch (absolute), or null. */
  readonly project: string | null;
  /** Where chain ledgers live. */
  readonly chain: ChainBackend;
  /** The shared chain store's URL with its secrets redacted (to show), or null for per-project SQLite. */
  readonly chainRedacted: string | null;
  /** Agent threads' LangGraph Postgres URL, or undefined; in memory only. */
  readonly langgraphPostgresUrl: string | undefined;
  /** Agent threads' first SQLite database (absolute), or undefined. */
  readonly langgraphSqlite: string | undefined;
  /** The app's configuration directory (`GF_CONFIG_DIR`, else the platform's). */
  readonly configDir: string;
}

/**
 * Reads the launch configuration from the surface's arguments and `env`.
 *
 * A malformed chain Postgres URL (option or environment) is `GF_VALIDATION`
 * and its text is never echoed.
 */
export function readLaunchConfig(given: LaunchArguments, env: LaunchEnv): LaunchConfig {
  const pg = given.sharedLedgers === false ? null : resolveChainPostgresTarget({ option: given.chainPostgresUrl, env });
  const langgraph = given.langgraphPostgresUrl ?? env[LANGGRAPH_POSTGRES_URL_ENV];
  return {
    project: given.project === undefined ? null : resolve(given.project),
    chain: pg === null ? { kind: 'sqlite' } : { kind: 'postgres', url: pg.url },
    chainRedacted: pg === null ? null : pg.redacted,
    langgraphPostgresUrl: langgraph === undefined || langgraph === '' ? undefined : langgraph,
    langgraphSqlite: given.langgraphSqlite === undefined ? undefined : resolve(given.langgraphSqlite),
    configDir: appConfigDir(env),
  };
}

/** The value after `flag` in `argv`, if any. */
function argValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

/**
 * The desktop app's launch: `--project DIR` (else `GF_PROJECT`); the chain
 * ledgers in the shared PostgreSQL store when the environment names one;
 * Agent threads' LangGraph Postgres URL from the environment.
 */
export function desktopLaunchConfig(argv: readonly string[], env: LaunchEnv): LaunchConfig {
  const project = argValue(argv, '--project') ?? env[PROJECT_ENV];
  return readLaunchConfig(project === undefined ? {} : { project }, env);
}

/** What a surface adds to its launch configuration: the folder dialog (the desktop's) and the engine clocks (tests). */
export type SurfaceExtras = Pick<FacadeOptions, 'chooseFolder' | 'clock' | 'micros'>;

/** The facade options of a surface launched with `config`. */
export function launchFacadeOptions(config: LaunchConfig, mode: SurfaceMode, extras: SurfaceExtras = {}): FacadeOptions {
  return {
    ...extras,
    mode,
    chain: config.chain,
    configDir: config.configDir,
    ...(config.langgraphPostgresUrl === undefined ? {} : { langgraphPostgresUrl: config.langgraphPostgresUrl }),
    ...(config.langgraphSqlite === undefined ? {} : { langgraphSqlite: config.langgraphSqlite }),
  };
}
