// Open a workspace: in the desktop app Electron's folder dialog
// (`app.choose_workspace`), and everywhere a typed folder path (the one place a
// path is sent); recent workspaces, and how to make the demo.
import { useState, type FormEvent } from 'react';
import { ErrorBox } from '../components/error-box';
import { useAction } from '../hooks';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';

/** The open-workspace screen. */
export function OpenScreen() {
  const { mode, recents, openPath, opening, openError, workspace, go } = useStudio(useShallow((s) => ({ mode: s.mode, recents: s.recents, openPath: s.openPath, opening: s.opening, openError: s.openError, workspace: s.workspace, go: s.go })));
  const [path, setPath] = useState('');
  // The desktop app picks the folder in Electron's dialog (browser mode has no dialog that yields a path: it types one).
  const desktop = mode === 'electron';
  const choose = useAction(async () => {
    const chosen = await invoke('app.choose_workspace', {});
    if (chosen.path !== null) await openPath(chosen.path);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim() !== '') void openPath(path.trim());
  };
  return (
    <section className="screen" aria-labelledby="open-title">
      <h2 id="open-title">Open a workspace</h2>
      {desktop && (
        <p>
          <button type="button" className="primary" onClick={() => void choose.run()} disabled={opening || choose.busy} data-testid="choose-workspace">{choose.busy ? 'Choosing…' : 'Open workspace…'}</button>
          <span className="muted"> or type its folder below</span>
        </p>
      )}
      {choose.error !== null && <ErrorBox error={choose.error} testId="choose-error" />}
      <form className="row-form" onSubmit={submit}>
        <label htmlFor="open-path">Workspace folder (absolute path)</label>
        <input id="open-path" className="wide mono" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/me/research-workspace" spellCheck={false} autoComplete="off" />
        <button type="submit" disabled={opening || path.trim() === ''}>{opening ? 'Opening…' : 'Open'}</button>
      </form>
      {openError !== null && <ErrorBox error={openError} testId="open-error" />}
      <h3>Recent workspaces</h3>
      {recents.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul className="plain-list" aria-label="Recent workspaces">
          {recents.map((r) => (
            <li key={r} data-testid="recent-workspace">
              {workspace?.path === r ? (
                <>
                  <button type="button" className="link mono" onClick={() => go('history')}>{r}</button> <span className="badge badge-current" data-testid="recent-open">open now</span>
                </>
              ) : (
                <button type="button" className="link mono" onClick={() => void openPath(r)} disabled={opening}>{r}</button>
              )}
            </li>
          ))}
        </ul>
      )}
      <h3>The demo</h3>
      <p className="muted">
        Create the demo research workspace with <code>npx gf demo create DIR</code> (checkpoints, a deleted checkpoint, ledgers), then open <code>DIR</code> here or start
        with <code>npx gf serve --project DIR</code>.
      </p>
    </section>
  );
}
