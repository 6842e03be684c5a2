// Renderer shell: proves the wiring (session, operations, project summary,
// ledgers). The product screens are built on top of `invoke`.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { JsonResults, OperationName } from '../core/api/contract';
import { captureToken, invoke, transport } from './invoke';

type Session = JsonResults['app.session'];

interface Loaded {
  readonly session: Session;
  readonly summary: JsonResults['project.summary'] | null;
  readonly workflows: JsonResults['chain.list'] | null;
  readonly verify: JsonResults['chain.verify'] | null;
}

const has = (s: Session, op: OperationName): boolean => s.operations.includes(op);

async function load(): Promise<Loaded> {
  const session = await invoke('app.session', {});
  const project = session.project?.project;
  if (project === undefined) return { session, summary: null, workflows: null, verify: null };
  const [summary, workflows, verify] = await Promise.all([
    has(session, 'project.summary') ? invoke('project.summary', { project }) : null,
    has(session, 'chain.list') ? invoke('chain.list', { project }) : null,
    has(session, 'chain.verify') ? invoke('chain.verify', { project }) : null,
  ]);
  return { session, summary, workflows, verify };
}

function App() {
  const [state, setState] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    load().then(setState, (e: unknown) => setError(e instanceof Error ? e.message : 'failed'));
  }, []);
  if (error !== null) return <main><p className="error" role="alert" data-testid="error">{error}</p></main>;
  if (state === null) return <main><p className="muted">Loading…</p></main>;
  const { session, summary, workflows, verify } = state;
  const statusOf = (id: string) => verify?.results.find((r) => r.workflow_id === id)?.status ?? '';
  return (
    <main>
      <h1>Checkpoint Studio</h1>
      <p className="muted" data-testid="mode">
        {session.mode} mode over {transport()} · project: <span data-testid="project-label">{session.project?.label ?? 'none'}</span>
      </p>
      {summary !== null && (
        <section aria-label="Generations">
          <h2>Generations</h2>
          <p data-testid="generation-count">{summary.generations.length}</p>
          <table>
            <thead><tr><th>generation</th><th>parent</th><th>current</th><th>restored from</th></tr></thead>
            <tbody>
              {summary.generations.map((g) => (
                <tr key={g.generation_uuid}>
                  <td className="mono">{g.generation_uuid}</td>
                  <td className="mono">{g.parent_generation_uuid ?? '—'}</td>
                  <td>{g.is_current ? 'CURRENT' : ''}</td>
                  <td className="mono">{g.restoration?.checkpoint_uuid ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {workflows !== null && (
        <section aria-label="Ledgers">
          <h2>Ledgers</h2>
          <table>
            <thead><tr><th>workflow</th><th>rows</th><th>tail head</th><th>verify</th></tr></thead>
            <tbody>
              {workflows.workflows.map((w) => (
                <tr key={w.workflow_id} data-testid="workflow-row">
                  <td className="mono" data-testid="workflow-id">{w.workflow_id}</td>
                  <td>{w.rows}</td>
                  <td className="mono">{w.tail_head}</td>
                  <td data-testid="verify-status">{statusOf(w.workflow_id)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section aria-label="Operations">
        <h2>Operations</h2>
        <ul data-testid="operations">
          {session.operations.map((op) => <li key={op} className="mono">{op}</li>)}
        </ul>
      </section>
    </main>
  );
}

captureToken();
const root = document.getElementById('root');
if (root !== null) createRoot(root).render(<StrictMode><App /></StrictMode>);
