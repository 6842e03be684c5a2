// The app shell: header with the workspace, navigation between screens,
// and a clear error in place of a blank screen.
import { Suspense, lazy, useEffect } from 'react';
import { ErrorBox } from './components/error-box';
import { Identity } from './components/identity';
import { transport } from './invoke';
import { HistoryScreen } from './screens/history-screen';
import { OpenScreen } from './screens/open-screen';
import { useShallow } from 'zustand/react/shallow';
import { useStudio, type Screen } from './store';

// The first screens (open, history) are in the app chunk; the others (and
// the table, virtualizer and contract-schema code only they need) load in
// their own chunks, fetched once the first screen is up.
const loadCheckpoint = () => import('./screens/checkpoint-screen');
const loadDiff = () => import('./screens/diff-screen');
const loadRevert = () => import('./screens/revert-screen');
const loadLedgers = () => import('./screens/ledgers-screen');
const loadThreads = () => import('./screens/threads-screen');
const CheckpointScreen = lazy(() => loadCheckpoint().then((m) => ({ default: m.CheckpointScreen })));
const DiffScreen = lazy(() => loadDiff().then((m) => ({ default: m.DiffScreen })));
const RevertScreen = lazy(() => loadRevert().then((m) => ({ default: m.RevertScreen })));
const LedgersScreen = lazy(() => loadLedgers().then((m) => ({ default: m.LedgersScreen })));
const ThreadsScreen = lazy(() => loadThreads().then((m) => ({ default: m.ThreadsScreen })));

/** Fetches the other screens' chunks in the background (after the first paint). */
function prefetchScreens(): void {
  for (const load of [loadCheckpoint, loadDiff, loadRevert, loadLedgers, loadThreads]) void load().catch(() => undefined);
}

/**
 * How often the app asks whether another process changed the workspace
 * (`project.changes`: a few `stat` calls). Under the 2 s the issue allows,
 * including the refresh that follows.
 */
export const LIVE_POLL_MS = 700;

/** Polls `project.changes` while a workspace is open and the page is visible; one check at a time. */
function useLiveUpdates(active: boolean, check: () => Promise<void>): void {
  useEffect(() => {
    if (!active) return undefined;
    let running = false;
    const tick = () => {
      if (running || document.visibilityState === 'hidden') return;
      running = true;
      // A failed check (a busy writer, a stopped server) is retried on the next tick; screens show their own errors.
      void check().catch(() => undefined).finally(() => {
        running = false;
      });
    };
    tick();
    const t = setInterval(tick, LIVE_POLL_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(t);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [active, check]);
}

const NAV: readonly { readonly screen: Screen; readonly label: string }[] = [
  { screen: 'open', label: 'Workspaces' },
  { screen: 'history', label: 'History' },
  { screen: 'checkpoint', label: 'Checkpoint' },
  { screen: 'diff', label: 'Diff' },
  { screen: 'revert', label: 'Revert' },
  { screen: 'ledgers', label: 'Ledgers' },
  { screen: 'threads', label: 'Agent threads' },
];
/** Screens reachable without an open workspace. */
const NO_WORKSPACE: ReadonlySet<Screen> = new Set<Screen>(['open', 'threads']);

/** The root component. */
export function App() {
  const { booted, fatal, workspace, screen, go, mode, boot, followHash, checkChanges, connected, reconnect } = useStudio(useShallow((s) => ({ booted: s.booted, fatal: s.fatal, workspace: s.workspace, screen: s.screen, go: s.go, mode: s.mode, boot: s.boot, followHash: s.followHash, checkChanges: s.checkChanges, connected: s.connected, reconnect: s.reconnect })));
  // Polling stops while the server is unreachable (one banner says so); Retry resumes it.
  useLiveUpdates(booted && workspace !== null && connected, checkChanges);
  useEffect(() => {
    void boot();
  }, [boot]);
  // Back, forward and an edited address follow the hash route.
  useEffect(() => {
    const onHash = () => followHash(location.hash);
    window.addEventListener('hashchange', onHash);
    window.addEventListener('popstate', onHash);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('popstate', onHash);
    };
  }, [followHash]);
  useEffect(() => {
    if (!booted) return undefined;
    const t = setTimeout(prefetchScreens, 0);
    return () => clearTimeout(t);
  }, [booted]);
  return (
    <div className="app">
      <header className="app-head">
        <h1>Checkpoint Studio</h1>
        <p className="muted" data-testid="mode">
          {mode ?? '…'} mode over {transport()} · workspace: <span data-testid="project-label">{workspace?.label ?? 'none'}</span>
        </p>
        <Identity />
      </header>
      {booted && fatal === null && (
        <nav aria-label="Screens" className="app-nav">
          {NAV.filter((n) => workspace !== null || NO_WORKSPACE.has(n.screen)).map((n) => (
            <button key={n.screen} type="button" className="nav-item" aria-current={screen === n.screen ? 'page' : undefined} onClick={() => go(n.screen)}>
              {n.label}
            </button>
          ))}
        </nav>
      )}
      <main className="app-main">
        {!connected && (
          <div className="error-box server-lost" role="alert" data-testid="server-lost">
            <p><strong>The Checkpoint Studio server stopped.</strong> Nothing is checked or saved until it runs again.</p>
            <p className="error-action">Restart it (npm start or gf serve) and open the link it prints; check History before repeating a change you made just before it stopped.</p>
            <button type="button" onClick={() => void reconnect()} data-testid="server-retry">Try again</button>
          </div>
        )}
        <Suspense fallback={<p className="muted">Loading…</p>}>
        {fatal !== null ? (
          <ErrorBox error={fatal} />
        ) : !booted ? (
          <p className="muted">Loading…</p>
        ) : screen === 'threads' ? (
          <ThreadsScreen />
        ) : workspace === null || screen === 'open' ? (
          <OpenScreen />
        ) : screen === 'history' ? (
          <HistoryScreen />
        ) : screen === 'checkpoint' ? (
          <CheckpointScreen />
        ) : screen === 'diff' ? (
          <DiffScreen />
        ) : screen === 'revert' ? (
          <RevertScreen />
        ) : (
          <LedgersScreen />
        )}
        </Suspense>
      </main>
    </div>
  );
}
