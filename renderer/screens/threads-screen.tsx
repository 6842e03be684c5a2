// Agent threads: LangGraph checkpoint databases. Pick a source (a
// SQLite file, remembered among recents, or the PostgreSQL database given at
// launch: its URL never leaves the server), search its threads, walk one
// thread's history, inspect a checkpoint, diff any two, restore one with a
// reason, and see the adapter's health. Everything is paged by the engine;
// the link carries source, thread and checkpoints (deep links work).
import { threadTree, type ThreadTreeNode } from '../../core/contract/thread-tree';
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { THREAD_HEAD_SELECTOR, THREAD_PAGE_LIMITS, type ThreadHistoryRow, type ThreadListRow, type ThreadPage } from '../../core/contract/threads';
import { startBoot } from '../boot';
import { ErrorBox } from '../components/error-box';
import { ActorLabel } from '../components/actor-label';
import { When } from '../components/when';
import { exactUtc } from '../../core/contract/format';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { countOf, formatCount } from '../format';
import { useQuery } from '../hooks';
import { invoke } from '../invoke';
import { usePagedRows } from '../paged';
import { withParams } from '../routes';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { ThreadDiffView, StateInspector, SubgraphsPanel } from './threads-inspect';
import { RestorePanel } from './threads-restore';
import { PrunePanel } from './threads-prune';
import { POSTGRES_PARAM, ageText, loadThreadRecents, rememberThreadDatabase, shortId, sourceKey, sourceOfParam, threadError, type ThreadSource } from './threads-common';

const pageRows = <R,>(p: ThreadPage<R>) => ({ columns: [] as const, rows: p.rows });

const THREAD_COLUMNS: readonly GridColumn<ThreadListRow>[] = [
  { id: 'thread_id', header: 'Thread', minRem: 10 },
  { id: 'interrupted', header: 'Status', minRem: 10, render: (r) => (r.interrupted ? <span className="badge badge-revert">waiting for an answer</span> : <span className="muted">—</span>), title: (r) => (r.interrupted ? 'an interrupt waits for an answer' : '') },
  { id: 'checkpoint_count', header: 'Checkpoints', minRem: 7, render: (r) => formatCount(r.checkpoint_count), title: (r) => String(r.checkpoint_count) },
  { id: 'latest_time', header: 'Latest', minRem: 19, render: (r) => <When iso={r.latest_time} />, title: (r) => `${exactUtc(r.latest_time) ?? r.latest_time} (UTC)` },
  { id: 'latest_step', header: 'Step', minRem: 4, render: (r) => (r.latest_step === null ? '—' : formatCount(r.latest_step)), title: (r) => String(r.latest_step ?? '') },
  { id: 'latest_source', header: 'Source', minRem: 5 },
];

const list = (v: readonly string[]): string => (v.length === 0 ? '—' : v.join(', '));

function historyColumns(headId: string | null, tree: ReadonlyMap<string, ThreadTreeNode>): readonly GridColumn<ThreadHistoryRow>[] {
  return [
    {
      id: 'parent_checkpoint_id', header: 'Branch', minRem: 7, // the branch is read from the parent links
      render: (r) => {
        const n = tree.get(r.checkpoint_id);
        if (n === undefined) return '';
        return (
          <span data-testid="history-branch" data-branch={n.branch}>
            {n.on_head_path ? '● ' : `${'│ '.repeat(n.branch)}○ `}
            {n.on_head_path ? 'head line' : `branch ${n.branch}`}
            {n.children > 1 && <span className="badge" title={`${n.children} checkpoints continue from here`}> fork: {n.children}</span>}
          </span>
        );
      },
      title: (r) => {
        const n = tree.get(r.checkpoint_id);
        return n === undefined ? '' : n.on_head_path ? 'on the path of the head' : `on branch ${n.branch}, not on the path of the head`;
      },
    },
    { id: 'time', header: 'Time', minRem: 19, render: (r) => <When iso={r.time} />, title: (r) => `${exactUtc(r.time) ?? r.time} (UTC)` },
    { id: 'step', header: 'Step', minRem: 4, render: (r) => (r.step === null ? '—' : formatCount(r.step)), title: (r) => String(r.step ?? '') },
    { id: 'source', header: 'Source', minRem: 5 },
    { id: 'writes', header: 'Written by', minRem: 8, render: (r) => list(r.writes), title: (r) => r.writes.join(', ') },
    { id: 'next', header: 'Next', minRem: 8, render: (r) => list(r.next), title: (r) => r.next.join(', ') },
    {
      id: 'checkpoint_id', header: 'Checkpoint', mono: true, minRem: 12,
      render: (r) => (
        <>
          {r.checkpoint_id === headId && <span className="badge badge-current">head</span>}
          {r.restored_from !== null && <span className="badge badge-revert" title={`restored from ${r.restored_from}`}>restored</span>}
          {shortId(r.checkpoint_id)}
        </>
      ),
      title: (r) => r.checkpoint_id,
    },
    {
      id: 'restore_reason', header: 'Restore', minRem: 16,
      render: (r) => (r.restored_from === null ? '' : (
        <span data-testid="thread-row-restore">
          <q data-testid="thread-row-reason">{r.restore_reason ?? ''}</q>{r.restore_actor !== null && <> by <ActorLabel actor={r.restore_actor} compact testId="thread-row-actor" /></>}
        </span>
      )),
      title: (r) => (r.restored_from === null ? '' : `restored from ${r.restored_from}: ${r.restore_reason ?? ''}`),
    },
  ];
}

/** A checkpoint choice's label: the user's facts first, the id's start after. */
const checkpointLabel = (r: ThreadHistoryRow): string => `${r.time} · step ${r.step ?? '—'} · ${r.source ?? '—'}${r.next.length > 0 ? ` · next ${r.next.join(', ')}` : ''} · ${shortId(r.checkpoint_id)}`;

/** The Agent threads screen. */
export function ThreadsScreen() {
  const { route, setRoute } = useStudio(useShallow((s) => ({ route: s.route, setRoute: s.setRoute })));
  const params = route.screen === 'threads' ? route.params : {};
  const update = useCallback((changes: Readonly<Record<string, string | null>>, replace = false) => {
    const r = useStudio.getState().route;
    setRoute(withParams(r.screen === 'threads' ? r : { screen: 'threads', params: {} }, changes), { replace });
  }, [setRoute]);
  // What the launch offers (the boot's own app.session answer: no second call).
  const launch = useQuery('launch', async () => (await startBoot()).session.threads);
  const source = sourceOfParam(params['source']);
  const defaultSqlite = launch.data?.default_sqlite ?? null;
  useEffect(() => {
    if (params['source'] === undefined && defaultSqlite !== null) update({ source: defaultSqlite }, true);
  }, [params, defaultSqlite, update]);
  const [revision, setRevision] = useState(0);
  const thread = params['thread'] ?? null;
  const checkpoint = params['checkpoint'] ?? null;
  const from = params['from'] ?? null;
  const to = params['to'] ?? null;
  const prefix = params['q'] ?? '';
  const choose = (value: string) => update({ source: value, q: null, thread: null, checkpoint: null, from: null, to: null });
  const [recents, setRecents] = useState(loadThreadRecents);
  const onAnswered = useCallback((path: string) => setRecents(rememberThreadDatabase(path)), []);

  return (
    <section className="screen" aria-labelledby="threads-title">
      <h2 id="threads-title">Agent threads</h2>
      <p className="muted small">LangGraph checkpoint databases, read-only: browsing never writes; only a restore appends a checkpoint, and only a prune you confirm deletes old ones.</p>
      <SourcePicker source={source} postgres={launch.data?.postgres ?? false} recents={recents} onChoose={choose} />
      {source === null ? (
        <p className="muted" data-testid="threads-no-source">Choose a LangGraph checkpoint database above.</p>
      ) : (
        <SourceView
          key={sourceKey(source)}
          source={source}
          revision={revision}
          prefix={prefix}
          thread={thread}
          checkpoint={checkpoint}
          from={from}
          to={to}
          update={update}
          onRestored={() => setRevision((n) => n + 1)}
          onAnswered={onAnswered}
        />
      )}
    </section>
  );
}

function SourcePicker({ source, postgres, recents, onChoose }: { readonly source: ThreadSource | null; readonly postgres: boolean; readonly recents: readonly string[]; readonly onChoose: (value: string) => void }) {
  const [path, setPath] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim() !== '') onChoose(path.trim());
  };
  return (
    <div className="stack" data-testid="threads-source">
      <p data-testid="threads-current-source">
        Reading:{' '}
        {source === null ? <span className="muted">no database chosen</span> : source.kind === 'postgres' ? <strong>the PostgreSQL database given at launch</strong> : <strong className="mono">{source.path}</strong>}
      </p>
      <form className="row-form" onSubmit={submit}>
        <label htmlFor="threads-path">SQLite checkpoint database (absolute path)</label>
        <input id="threads-path" className="wide mono" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/me/agents/langgraph.sqlite" spellCheck={false} autoComplete="off" />
        <button type="submit" disabled={path.trim() === ''}>Open</button>
      </form>
      {postgres ? (
        <button type="button" onClick={() => onChoose(POSTGRES_PARAM)} aria-pressed={source?.kind === 'postgres'} data-testid="threads-postgres">
          The PostgreSQL database given at launch
        </button>
      ) : (
        <p className="muted small" data-testid="threads-no-postgres">No PostgreSQL database was given at launch (start with <code>--postgres-url</code> or <code>GF_LANGGRAPH_POSTGRES_URL</code>).</p>
      )}
      {recents.length > 0 && (
        <details>
          <summary>Recent databases ({formatCount(recents.length)})</summary>
          <ul className="plain-list" aria-label="Recent checkpoint databases">
            {recents.map((r) => (
              <li key={r}><button type="button" className="link mono" onClick={() => onChoose(r)}>{r}</button></li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function SourceView(props: {
  readonly source: ThreadSource;
  readonly revision: number;
  readonly prefix: string;
  readonly thread: string | null;
  readonly checkpoint: string | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly update: (changes: Readonly<Record<string, string | null>>, replace?: boolean) => void;
  readonly onRestored: () => void;
  /** A SQLite path answered: it joins the recents. */
  readonly onAnswered: (path: string) => void;
}) {
  const { source, revision, prefix, thread, checkpoint, from, to, update, onAnswered } = props;
  const key = sourceKey(source);
  const [search, setSearch] = useState(prefix);
  const threads = usePagedRows(`${key}|${prefix}|${revision}`, (after) => invoke('threads.list', { source, ...(prefix === '' ? {} : { prefix }), limit: THREAD_PAGE_LIMITS.default, after }), pageRows<ThreadListRow>);
  // A SQLite path that answered is remembered among the recents.
  const answered = threads.pages > 0;
  const answeredPath = answered && source.kind === 'sqlite' ? source.path : null;
  useEffect(() => {
    if (answeredPath !== null) onAnswered(answeredPath);
  }, [answeredPath, onAnswered]);
  const onSearch = (value: string) => {
    setSearch(value);
    update({ q: value === '' ? null : value }, true);
  };
  return (
    <>
      <HealthPanel source={source} revision={revision} />
      <h3 id="threads-list-title">Threads</h3>
      <div className="row-form">
        <label htmlFor="threads-search">Thread id starts with</label>
        <input id="threads-search" type="search" value={search} onChange={(e) => onSearch(e.target.value)} spellCheck={false} autoComplete="off" />
      </div>
      {threads.error !== null ? (
        <ErrorBox error={threadError(threads.error)} testId="threads-error" />
      ) : (
        <VirtualGrid
          label="Threads"
          columns={THREAD_COLUMNS}
          rows={threads.rows}
          rowKey={(r) => r.thread_id}
          hasMore={threads.hasMore}
          loading={threads.loading}
          onNeedMore={threads.more}
          onActivate={(r) => update({ thread: r.thread_id, checkpoint: r.latest_checkpoint_id, from: null, to: null })}
          selectedKey={thread}
          size="short"
          testId="threads-list"
          resetKey={prefix}
          emptyText={prefix === '' ? 'This database has no threads.' : 'No thread id starts with this text.'}
          status={threads.loading ? 'Loading…' : `${countOf(threads.count, 'thread', 'threads')}${threads.hasMore ? ' loaded · scroll for more' : ''}`}
        />
      )}
      {thread !== null && <ThreadView {...props} thread={thread} checkpoint={checkpoint} from={from} to={to} />}
      <h3 id="threads-prune-title">Prune old checkpoints</h3>
      <PrunePanel source={source} thread={thread} onPruned={props.onRestored} />
    </>
  );
}

function HealthPanel({ source, revision }: { readonly source: ThreadSource; readonly revision: number }) {
  const health = useQuery(`${sourceKey(source)}|${revision}`, () => invoke('threads.health', { source }));
  const h = health.data;
  return (
    <div className="health" aria-labelledby="threads-health-title" role="region" data-testid="threads-health">
      <h3 id="threads-health-title">Adapter health</h3>
      {health.error !== null && <ErrorBox error={threadError(health.error)} testId="threads-health-error" />}
      {h !== null && (
        <p>
          {h.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} · pool: <span data-testid="health-in-use">{formatCount(h.pool_in_use)}</span> in use, <span data-testid="health-idle">{formatCount(h.pool_idle)}</span> idle · last write:{' '}
          <span data-testid="health-last-write">{ageText(h.last_write_age_seconds)}</span>
          {h.pool_waiting > 0 && <> · <strong data-testid="health-waiting">{formatCount(h.pool_waiting)} waiting for a connection</strong></>}{' '}
          <button type="button" className="link small" onClick={health.reload}>Check again</button>
        </p>
      )}
      {h !== null && !h.readable && (
        <p className="warning" role="alert" data-testid="health-unreadable">
          Not healthy: the threads browser cannot read this database. {h.unreadable_reason}
        </p>
      )}
    </div>
  );
}

function ThreadView({ source, revision, thread, checkpoint, from, to, update, onRestored }: {
  readonly source: ThreadSource;
  readonly revision: number;
  readonly thread: string;
  readonly checkpoint: string | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly update: (changes: Readonly<Record<string, string | null>>, replace?: boolean) => void;
  readonly onRestored: () => void;
}) {
  const history = usePagedRows(`${sourceKey(source)}|${thread}|${revision}`, (after) => invoke('threads.history', { source, thread_id: thread, limit: THREAD_PAGE_LIMITS.default, after }), pageRows<ThreadHistoryRow>);
  const headId = history.pages > 0 ? history.rows[0]?.checkpoint_id ?? null : null;
  const tree = useMemo(() => new Map(threadTree(history.rows).map((n) => [n.checkpoint_id, n])), [history.rows, history.count]); // rows grow in place: count marks a new page
  const columns = useMemo(() => historyColumns(headId, tree), [headId, tree]);
  const byId = useMemo(() => new Map(history.rows.map((r) => [r.checkpoint_id, r])), [history.rows, history.count]); // rows grow in place: count marks a new page
  const options = (chosen: string | null, head: boolean) => {
    const opts = history.rows.map((r) => <option key={r.checkpoint_id} value={r.checkpoint_id}>{checkpointLabel(r)}</option>);
    if (chosen !== null && chosen !== THREAD_HEAD_SELECTOR && !byId.has(chosen)) opts.push(<option key={chosen} value={chosen}>{chosen}</option>);
    return [<option key="" value="">Choose a checkpoint…</option>, ...(head ? [<option key={THREAD_HEAD_SELECTOR} value={THREAD_HEAD_SELECTOR}>The head (newest)</option>] : []), ...opts];
  };
  return (
    <>
      <h3 id="thread-history-title">History of “{thread}”</h3>
      {history.error !== null ? (
        <ErrorBox error={threadError(history.error)} testId="thread-history-error" />
      ) : (
        <VirtualGrid
          label={`Checkpoints of ${thread}, newest first`}
          columns={columns}
          rows={history.rows}
          rowKey={(r) => r.checkpoint_id}
          hasMore={history.hasMore}
          loading={history.loading}
          onNeedMore={history.more}
          onActivate={(r) => update({ checkpoint: r.checkpoint_id })}
          selectedKey={checkpoint}
          rowClass={(r) => (r.restored_from !== null ? 'is-new' : '')}
          size="short"
          testId="thread-history"
          resetKey={thread}
          emptyText="This thread has no checkpoints."
          status={history.loading ? 'Loading…' : `${countOf(history.count, 'checkpoint', 'checkpoints')}${history.hasMore ? ' loaded · scroll for more' : ''}`}
        />
      )}
      <div className="inspector-wide">
        <div>
          <h3>Checkpoint</h3>
          {checkpoint === null ? (
            <p className="muted">Choose a checkpoint in the history (Enter or a click) to inspect it.</p>
          ) : (
            <StateInspector source={source} thread={thread} checkpoint={checkpoint} revision={revision} onDiffFrom={(id) => update({ from: id })} onDiffTo={(id) => update({ to: id })} />
          )}
        </div>
      </div>
      <h3 id="thread-subgraphs-title">Subgraphs</h3>
      <SubgraphsPanel source={source} thread={thread} revision={revision} />
      <h3 id="thread-diff-title">Diff two checkpoints</h3>
      <div className="row-form">
        <label htmlFor="thread-diff-from">From</label>
        <select id="thread-diff-from" value={from ?? ''} onChange={(e) => update({ from: e.target.value === '' ? null : e.target.value }, true)}>{options(from, true)}</select>
        <label htmlFor="thread-diff-to">To</label>
        <select id="thread-diff-to" value={to ?? ''} onChange={(e) => update({ to: e.target.value === '' ? null : e.target.value }, true)}>{options(to, true)}</select>
      </div>
      {from !== null && to !== null ? (
        <ThreadDiffView source={source} thread={thread} from={from} to={to} revision={revision} label="Value changes" testId="thread-diff" />
      ) : (
        <p className="muted">Choose two checkpoints to see what changed between them.</p>
      )}
      <h3 id="thread-restore-title">Restore</h3>
      {checkpoint === null ? (
        <p className="muted">Choose the checkpoint to restore in the history.</p>
      ) : (
        <RestorePanel
          key={thread}
          source={source}
          thread={thread}
          target={checkpoint}
          targetTime={byId.get(checkpoint)?.time ?? null}
          headId={headId}
          revision={revision}
          onRestored={onRestored}
          onStale={onRestored}
          onInspect={(id) => update({ checkpoint: id })}
        />
      )}
    </>
  );
}
