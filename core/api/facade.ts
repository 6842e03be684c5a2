// The facade: implements each contract operation by calling the engine
// modules. `Implementations` is total: an operation the contract declares and
// no module implements fails the build (no runtime placeholder, no hidden button).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProjectOpened } from '../contract/operations';
import { DEMO_LANGGRAPH_FILE } from '../contract/threads';
import { unwrapEnvelope } from '../contract/wire';
import { createDispatcher, type Dispatcher, type Implementations } from './dispatcher';
import { projectOperations } from './project-operations';
import type { ProjectSession } from './project-session';
import { Cancellations, checkpointOperations } from './checkpoint-operations';
import { ChainStores, chainOperations, type ChainBackend, type LedgerScope } from './chain-operations';
import { maintenanceOperations } from './maintenance-operations';
import { historyOperations } from './history-operations';
import { graphOperations } from './graph-operations';
import type { CheckpointView } from '../views/checkpoint-view';
import { SessionTable } from './sessions';
import { ThreadSources, threadsOperations } from './threads-operations';
import { workspaceOperations } from './workspace-operations';
import { ActorStore, appConfigDir } from '../actor/actor-store';
import { GfError } from '../errors';

/** Checkpoints the launch warm-up lists (the renderer's page size). */
const FIRST_SCREEN_CHECKPOINTS = 500;

/** Which surface hosts this facade (reported by `app.session`). */
export type SurfaceMode = 'electron' | 'browser' | 'library';

/** Facade options. */
export interface FacadeOptions {
  readonly mode: SurfaceMode;
  /** Engine clock (UTC); injected so tests and replays are deterministic. */
  readonly clock?: () => Date;
  /** Engine clock in UTC microseconds for checkpoint records (defaults to the system clock). */
  readonly micros?: () => number;
  /** Chain ledgers: per-project SQLite (default) or one shared PostgreSQL store. */
  readonly chain?: ChainBackend;
  /** Agent threads: the LangGraph Postgres URL given at launch (core/api/launch-config.ts reads it); kept in memory only; none when unset or empty. */
  readonly langgraphPostgresUrl?: string;
  /**
   * Agent threads: the SQLite checkpoint database the app offers first
   * (absolute). Default: `langgraph.sqlite` beside the launched workspace when
   * it exists (the demo's, as `gf demo create` writes it).
   */
  readonly langgraphSqlite?: string;
  /**
   * The app's configuration directory (the user's identity, `actors.json`):
   * the launch configuration's (core/api/launch-config.ts); a library caller
   * that gives none gets `GF_CONFIG_DIR`, else the platform's
   * (core/actor/actor-store.ts). Never a workspace.
   */
  readonly configDir?: string;
  /**
   * The desktop's folder dialog (`app.choose_workspace`): resolves to the
   * chosen folder, or null when the person cancelled. Electron main passes
   * Electron's dialog (electron/main/folder-dialog.ts); a surface without one
   * (browser mode, the CLI) answers `GF_DESKTOP_ONLY`.
   */
  readonly chooseFolder?: FolderDialog;
}

/** A folder picker: the chosen folder (absolute), or null when cancelled. */
export type FolderDialog = () => Promise<string | null>;

/** A facade instance: its implementations, its dispatcher and its sessions. */
export interface Facade {
  readonly implementations: Implementations;
  readonly dispatcher: Dispatcher;
  /**
   * Opens the launcher's project (`--project DIR`) through `project.open`;
   * `app.session` then reports it so the renderer can start there.
   */
  launch(directory: string): Promise<ProjectOpened>;
  /** Releases every session (views, leases, stores). */
  close(): Promise<void>;
}

/** Builds a facade over the engine modules present in this tree. */
export function createFacade(options: FacadeOptions): Facade {
  let launch: ProjectOpened | null = null;
  const projects = new SessionTable<ProjectSession>('project');
  const views = new SessionTable<CheckpointView>('view');
  const cancellations = new Cancellations();
  const chainStores = new ChainStores(options.chain ?? { kind: 'sqlite' });
  const postgresUrl = options.langgraphPostgresUrl === '' ? undefined : options.langgraphPostgresUrl;
  const threadSources = new ThreadSources(postgresUrl);
  let defaultSqlite: string | null = options.langgraphSqlite === undefined ? null : resolve(options.langgraphSqlite);
  const ledgers = new SessionTable<LedgerScope>('ledgers');
  const actors = new ActorStore(options.configDir ?? appConfigDir());

  const implementations: Implementations = {
    'app.choose_workspace': async () => {
      const choose = options.chooseFolder;
      if (choose === undefined) throw new GfError('GF_DESKTOP_ONLY', 'choosing a folder in a dialog is for the desktop app; type the workspace folder\'s path instead', { operation: 'app.choose_workspace' });
      return { path: await choose() };
    },
    // The launch workspace while its handle is open: a renderer that opened another closed it, and a reload then starts on the open screen.
    'app.session': async () => ({ project: launch !== null && projects.has(launch.project) ? launch : null, mode: options.mode, operations: dispatcher.available, threads: { default_sqlite: defaultSqlite, postgres: postgresUrl !== undefined && postgresUrl !== '' } }),
    ...projectOperations(projects, options.micros === undefined ? {} : { micros: options.micros }),
    ...checkpointOperations(projects, views, cancellations),
    ...threadsOperations(threadSources, options.clock ?? (() => new Date()), cancellations),
    ...chainOperations(projects, chainStores, ledgers),
    ...maintenanceOperations(projects),
    ...workspaceOperations(projects, views),
    ...historyOperations(projects),
    'actor.show': async () => actors.show(),
    'actor.rename': async ({ display_name }) => ({ self: actors.rename(display_name) }),
    'actor.resolve': async ({ actor }) => actors.resolve(actor),
    ...graphOperations(projects, views, cancellations),
  };

  const dispatcher = createDispatcher(implementations);

  return {
    implementations,
    dispatcher,
    async launch(directory) {
      const env = await dispatcher.dispatch('project.open', { path: directory });
      launch = unwrapEnvelope(env) as ProjectOpened;
      const beside = join(dirname(resolve(directory)), DEMO_LANGGRAPH_FILE);
      if (defaultSqlite === null && existsSync(beside)) defaultSqlite = beside;
      // The launched project's first screen asks for its history and checkpoints:
      // compute them once now, while the window or browser starts, so the first
      // open finds the generation records read and the code paths warm (results
      // are dropped; errors surface on the screen's own calls).
      const project = launch.project;
      setImmediate(() => {
        void dispatcher.dispatch('project.summary', { project });
        void dispatcher.dispatch('checkpoints.list', { project, limit: FIRST_SCREEN_CHECKPOINTS });
      });
      return launch;
    },
    async close() {
      await views.closeAll();
      await projects.closeAll();
      await ledgers.closeAll();
      await chainStores.close();
      await threadSources.close();
    },
  };
}
