// The app shell: header with the workspace, navigation between screens,
// and a clear error in place of a blank screen.
import { useEffect } from 'react';
import { ErrorBox } from './components/error-box';
import { transport } from './invoke';
import { CheckpointScreen } from './screens/checkpoint-screen';
import { DiffScreen } from './screens/diff-screen';
import { HistoryScreen } from './screens/history-screen';
import { LedgersScreen } from './screens/ledgers-screen';
import { OpenScreen } from './screens/open-screen';
import { RevertScreen } from './screens/revert-screen';
import { useStudio, type Screen } from './store';

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
  const { booted, fatal, workspace, screen, go, mode, boot } = useStudio();
  useEffect(() => {
    void boot();
  }, [boot]);
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
      </main>
    </div>
  );
}
