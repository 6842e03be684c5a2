// The app shell: header with the workspace, navigation between screens,
// and a clear error in place of a blank screen.
import { Suspense, lazy, useEffect } from 'react';
import { ErrorBox } from './components/error-box';
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
const CheckpointScreen = lazy(() => loadCheckpoint().then((m) => ({ default: m.CheckpointScreen })));
const DiffScreen = lazy(() => loadDiff().then((m) => ({ default: m.DiffScreen })));
const RevertScreen = lazy(() => loadRevert().then((m) => ({ default: m.RevertScreen })));
const LedgersScreen = lazy(() => loadLedgers().then((m) => ({ default: m.LedgersScreen })));

/** Fetches the other screens' chunks in the background (after the first paint). */
function prefetchScreens(): void {
  for (const load of [loadCheckpoint, loadDiff, loadRevert, loadLedgers]) void load().catch(() => undefined);
}

const NAV: readonly { readonly screen: Screen; readonly label: string }[] = [
  { screen: 'open', label: 'Workspaces' },
  { screen: 'history', label: 'History' },
  { screen: 'checkpoint', label: 'Checkpoint' },
  { screen: 'diff', label: 'Diff' },
  { screen: 'revert', label: 'Revert' },
  { screen: 'ledgers', label: 'Ledgers' },
];

/** The root component. */
export function App() {
  const { booted, fatal, workspace, screen, go, mode, boot, followHash } = useStudio(useShallow((s) => ({ booted: s.booted, fatal: s.fatal, workspace: s.workspace, screen: s.screen, go: s.go, mode: s.mode, boot: s.boot, followHash: s.followHash })));
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
      </header>
      {workspace !== null && (
        <nav aria-label="Screens" className="app-nav">
          {NAV.map((n) => (
            <button key={n.screen} type="button" className="nav-item" aria-current={screen === n.screen ? 'page' : undefined} onClick={() => go(n.screen)}>
              {n.label}
            </button>
          ))}
        </nav>
      )}
      <main className="app-main">
        <Suspense fallback={<p className="muted">Loading…</p>}>
        {fatal !== null ? (
          <ErrorBox error={fatal} />
        ) : !booted ? (
          <p className="muted">Loading…</p>
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
