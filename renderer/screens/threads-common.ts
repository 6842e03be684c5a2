// Shared pieces of the Agent threads screens: the source type, its link form,
// recent SQLite paths, display helpers and the plain-language next steps of
// thread errors.
import type { OperationInput } from '../../core/contract/operations';
import type { ThreadJson } from '../../core/contract/threads';
import { hasPythonValue, pythonRepr } from '../../core/contract/python-values';
import type { ShownError } from '../errors-text';
import { countOf } from '../format';

/** Where thread operations read: a SQLite file or the launch Postgres. */
export type ThreadSource = OperationInput<'threads.list'>['source'];

/** The link value naming the launch Postgres (any other value is a SQLite path). */
export const POSTGRES_PARAM = 'postgres';

/** The source a link's `source` parameter names (null: none chosen). */
export function sourceOfParam(param: string | undefined): ThreadSource | null {
  if (param === undefined || param === '') return null;
  return param === POSTGRES_PARAM ? { kind: 'postgres' } : { kind: 'sqlite', path: param };
}

/** A stable key of a source (query keys). */
export function sourceKey(source: ThreadSource): string {
  return source.kind === 'postgres' ? POSTGRES_PARAM : `sqlite:${source.path}`;
}

const RECENTS_KEY = 'gf.recent-thread-databases';
const RECENTS_MAX = 8;

/** SQLite checkpoint databases opened before (newest first; paths only, never a URL). */
export function loadThreadRecents(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(RECENTS_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, RECENTS_MAX) : [];
  } catch {
    return [];
  }
}

/** Remembers a SQLite path that answered (first in the list); returns the new list. */
export function rememberThreadDatabase(path: string): string[] {
  const recents = [path, ...loadThreadRecents().filter((p) => p !== path)].slice(0, RECENTS_MAX);
  localStorage.setItem(RECENTS_KEY, JSON.stringify(recents));
  return recents;
}

/** What to do about a thread error, by code (the generic next steps speak of workspaces). */
const THREAD_ACTIONS: Readonly<Record<string, string>> = {
  GF_IO: 'Choose a LangGraph SQLite checkpoint database file (an absolute path), or check that it can be read.',
  GF_SCHEMA_MISMATCH: 'This database has no LangGraph checkpoint tables of a layout this version reads. Choose the file a LangGraph SqliteSaver or PostgresSaver wrote.',
  GF_CHECKPOINT_UNREADABLE: 'A stored value of this thread is in a form this version does not read; the message names it. The rest of the thread can still be browsed.',
  GF_CHECKPOINT_NOT_FOUND: 'The thread or checkpoint is not in this database. Choose one from the lists.',
  GF_VALIDATION: 'Correct the input and try again; nothing was changed.',
  GF_STORE_UNREACHABLE: 'Start the PostgreSQL server or check the launch URL, then retry.',
  GF_IDEMPOTENCY_CONFLICT: 'This restore request was already used for another restore. Start the restore again.',
};

/** A thread error with the thread screens' next step. */
export function threadError(e: ShownError): ShownError {
  return { ...e, action: THREAD_ACTIONS[e.code] ?? e.action };
}

/** A compact one-line text: JSON, or Python's `repr` for values Python LangGraph wrote (long values cut, with their full text in the title). */
export function jsonLine(v: ThreadJson, max = 120): string {
  const text = hasPythonValue(v) ? pythonRepr(v) : (JSON.stringify(v) ?? 'null');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The first part of a LangGraph checkpoint id (a time-based UUID), for display next to the user's facts. */
export function shortId(id: string): string {
  return id.slice(0, 13);
}

/** An age in seconds as people say it ("never" before a write). */
export function ageText(seconds: number | null): string {
  if (seconds === null) return 'never';
  if (seconds < 1) return 'just now';
  if (seconds < 120) return `${countOf(Math.round(seconds), 'second', 'seconds')} ago`;
  if (seconds < 7200) return `${countOf(Math.round(seconds / 60), 'minute', 'minutes')} ago`;
  if (seconds < 172_800) return `${countOf(Math.round(seconds / 3600), 'hour', 'hours')} ago`;
  return `${countOf(Math.round(seconds / 86_400), 'day', 'days')} ago`;
}
