// The renderer's state (zustand): the open workspace, its history and
// checkpoints, the current screen, and recent workspaces. Every engine call
// goes through `invoke` (the operation contract).
import { create } from 'zustand';
import type { ArrowResult, JsonResults, OperationName, ProjectSummary, Row } from '../core/contract/operations';
import type { ActorBook } from '../core/contract/actor';
import { decodeArrow } from './arrow-rows';
import { fetchHistory, startBoot } from './boot';
import { showError, type ShownError } from './errors-text';
import { invoke, onServerLost } from './invoke';
import { formatRoute, parseRoute, type Route, type Screen } from './routes';

export { SCREENS, type Screen, type Route } from './routes';

/** An open workspace. */
export interface OpenWorkspace {
  readonly project: string;
  readonly label: string;
  /** Its folder (absolute), as listed among the recent workspaces. */
  readonly path: string;
}

/** The recent workspaces with `path` first (stored for the next visit). */
function withRecent(recents: readonly string[], path: string): string[] {
  const next = [path, ...recents.filter((p) => p !== path)].slice(0, RECENTS_MAX);
  try {
    localStorage.setItem(RECENTS_KEY, JSON.stringify(next));
  } catch {
    // storage unavailable: the list lasts for this page only
  }
  return next;
}

/** A checkpoint row (checkpoint@1) as displayed. */
export type CheckpointRow = Row<'checkpoints.list', 'checkpoint@1'>;

const RECENTS_KEY = 'gf.recent-workspaces';
const RECENTS_MAX = 8;

function loadRecents(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(RECENTS_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, RECENTS_MAX) : [];
  } catch {
    return [];
  }
}

/** The store's shape. */
export interface StudioState {
  readonly booted: boolean;
  readonly mode: JsonResults['app.session']['mode'] | null;
  readonly operations: readonly OperationName[];
  readonly workspace: OpenWorkspace | null;
  readonly summary: ProjectSummary | null;
  readonly checkpoints: readonly CheckpointRow[];
  readonly screen: Screen;
  /** The screen's state as its deep link holds it (`screen` is `route.screen` once a workspace is open). */
  readonly route: Route;
  /** Checkpoint name the checkpoint/revert screen starts on (the route's `name`). */
  readonly focusName: string | null;
  readonly fatal: ShownError | null;
  readonly openError: ShownError | null;
  readonly opening: boolean;
  readonly recents: readonly string[];
  /** Generation UUID of the last revert (highlighted in the history). */
  readonly lastRevertGeneration: string | null;
  /**
   * Bumped by every successful refresh: a query keyed on it refetches when the
   * workspace changed (here or, through live updates, in another process).
   */
  readonly revision: number;
  /** The last `project.changes` token seen (null: not polled yet for this workspace). */
  readonly changeToken: string | null;
  /**
   * False once a call could not reach the server (it stopped): the app shows
   * one banner and stops polling until the user retries.
   */
  readonly connected: boolean;
  /** Tries the server again (one `project.changes`/`app.session` call); polling resumes when it answers. */
  reconnect(): Promise<void>;
  /** The app user's identity and the actors known by name (null until loaded, or when the identity file cannot be read). */
  readonly actors: ActorBook | null;
  /** Loads `actors` (at boot); a failure leaves it null (actors then show as short ids, writes carry no actor). */
  loadActors(): Promise<void>;
  /** Renames the app user (the actor UUID stays). */
  renameSelf(displayName: string): Promise<void>;
  /**
   * Asks the engine whether the workspace changed (CURRENT, the registry, a
   * ledger — by any process) and refreshes when it did. Polled by the app shell.
   */
  checkChanges(): Promise<void>;
  boot(): Promise<void>;
  openPath(path: string): Promise<boolean>;
  /** Reloads the history and checkpoints (or takes ones already being fetched). */
  refresh(fetched?: ReturnType<typeof fetchHistory>): Promise<void>;
  go(screen: Screen, focusName?: string | null): void;
  /**
   * Moves to a route (a screen with its state) and writes its hash; `replace`
   * updates the link in place (a filter typed) instead of adding a history entry.
   */
  setRoute(route: Route, options?: { readonly replace?: boolean }): void;
  /** Takes a route from the address bar (hashchange, boot); never writes the hash back. */
  followHash(hash: string): void;
  closeWorkspace(): Promise<void>;
  markRevert(generation: string): void;
}

/** Decodes checkpoint pages into rows (in page order). */
function checkpointRows(pages: readonly ArrowResult[]): CheckpointRow[] {
  const rows: CheckpointRow[] = [];
  for (const page of pages) for (const r of decodeArrow(page.bytes, 'checkpoints.list', 'checkpoint@1').rows) rows.push(r);
  return rows;
}

/** The studio store. */
export const useStudio = create<StudioState>((set, get) => ({
  booted: false,
  mode: null,
  operations: [],
  workspace: null,
  summary: null,
  checkpoints: [],
  screen: 'open',
  route: { screen: 'open', params: {} },
  focusName: null,
  fatal: null,
  openError: null,
  opening: false,
  recents: loadRecents(),
  lastRevertGeneration: null,
  revision: 0,
  changeToken: null,
  actors: null,
  connected: true,
  async reconnect() {
    set({ connected: true });
    try {
      await invoke('app.session', {});
      await get().refresh();
    } catch {
      // still unreachable: the call itself marked the connection lost again
    }
  },
  async loadActors() {
    try {
      set({ actors: await invoke('actor.show', {}) });
    } catch {
      set({ actors: null });
    }
  },
  async renameSelf(displayName) {
    await invoke('actor.rename', { display_name: displayName });
    await get().loadActors();
  },
  async checkChanges() {
    const ws = get().workspace;
    if (ws === null) return;
    const { token } = await invoke('project.changes', { project: ws.project });
    if (get().workspace?.project !== ws.project) return;
    const before = get().changeToken;
    set({ changeToken: token });
    if (before !== null && before !== token) await get().refresh();
  },
  async boot() {
    try {
      // Started by the entry chunk while this one loaded (see boot.ts).
      const { session, history } = await startBoot();
      set({ mode: session.mode, operations: session.operations });
      void get().loadActors();
      if (session.project !== null && history !== null) {
        // The launched workspace is a recent one too.
        set({ workspace: session.project, recents: withRecent(get().recents, session.project.path) });
        // A deep link (reload, bookmark, second tab) lands on its screen; otherwise History.
        const linked = parseRoute(location.hash);
        get().setRoute(linked !== null && linked.screen !== 'open' ? linked : { screen: 'history', params: {} }, { replace: true });
        await get().refresh(history);
      } else if (parseRoute(location.hash)?.screen === 'threads') {
        get().setRoute(parseRoute(location.hash) ?? { screen: 'threads', params: {} }, { replace: true }); // Agent threads need no workspace
      }
      set({ booted: true });
    } catch (e) {
      set({ fatal: showError(e), booted: true });
    }
  },
  async openPath(path) {
    set({ opening: true, openError: null });
    try {
      const opened = await invoke('project.open', { path });
      const previous = get().workspace;
      const recents = withRecent(get().recents, opened.path);
      set({ workspace: opened, recents, summary: null, checkpoints: [], changeToken: null });
      get().setRoute({ screen: 'history', params: {} });
      if (previous !== null && previous.project !== opened.project) void invoke('project.close', { project: previous.project }).catch(() => undefined);
      await get().refresh();
      return true;
    } catch (e) {
      set({ openError: showError(e) });
      return false;
    } finally {
      set({ opening: false });
    }
  },
  async refresh(fetched) {
    const ws = get().workspace;
    if (ws === null) return;
    try {
      const { summary, checkpointPages } = await (fetched ?? fetchHistory(ws.project));
      set((s) => ({ summary, checkpoints: checkpointRows(checkpointPages), openError: null, revision: s.revision + 1 }));
    } catch (e) {
      // A workspace that cannot be summarized goes back to the open screen with its error.
      set({ openError: showError(e), workspace: null, summary: null, checkpoints: [] });
      get().setRoute({ screen: 'open', params: {} }, { replace: true });
    }
  },
  go(screen, focusName = null) {
    get().setRoute({ screen, params: focusName === null ? {} : { name: focusName } });
  },
  setRoute(route, options) {
    set({ route, screen: route.screen, focusName: route.params['name'] ?? null });
    const hash = formatRoute(route);
    if (typeof location === 'undefined' || location.hash === hash) return;
    if (options?.replace === true) history.replaceState(history.state, '', hash);
    else history.pushState(null, '', hash);
  },
  followHash(hash) {
    const route = parseRoute(hash);
    if (route === null || (get().workspace === null && route.screen !== 'threads')) return; // Agent threads need no workspace
    set({ route, screen: route.screen, focusName: route.params['name'] ?? null });
  },
  async closeWorkspace() {
    const ws = get().workspace;
    set({ workspace: null, summary: null, checkpoints: [] });
    get().setRoute({ screen: 'open', params: {} });
    if (ws !== null) await invoke('project.close', { project: ws.project }).catch(() => undefined);
  },
  markRevert(generation) {
    set({ lastRevertGeneration: generation });
  },
}));

/** The actor UUID every write from the app carries (the app user's), or nothing when the identity is not loaded. */
export function actorField(): { readonly actor_uuid?: string } {
  const self = useStudio.getState().actors?.self.actor_uuid;
  return self === undefined ? {} : { actor_uuid: self };
}

// A call that could not reach the server asks once more (a dropped answer is not a stopped server); when that
// fails too the connection is lost: one banner, polling stops.
let probing = false;
onServerLost(() => {
  if (probing || !useStudio.getState().connected) return;
  probing = true;
  invoke('app.session', {}).then(
    () => undefined,
    () => {
      useStudio.setState({ connected: false });
    },
  ).finally(() => {
    probing = false;
  });
});
