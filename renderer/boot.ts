// The first calls of a launch, started by the tiny entry chunk before the
// app's own chunk (React, Arrow, the screens) is fetched and parsed: the
// session, then the launched project's summary and every checkpoint page in
// parallel. The store takes the result once; Arrow pages stay raw bytes here
// (decoding needs apache-arrow, which lives in the app chunk).
import type { ArrowResult, JsonResults, ProjectSummary } from '../core/contract/operations';
import { invoke } from './invoke';
import { fetchAllPages } from './pages';

/** Checkpoint pages fetched per call. */
export const CHECKPOINT_PAGE = 500;
/** Upper bound on checkpoint pages (500,000 active checkpoints). */
const MAX_CHECKPOINT_PAGES = 1000;

/** What the boot fetched: the session, and for a launched project its history and raw checkpoint pages. */
export interface BootData {
  readonly session: JsonResults['app.session'];
  /** Present when the launcher opened a project; an error here sends the user to the open screen. */
  readonly history: Promise<{ readonly summary: ProjectSummary; readonly checkpointPages: readonly ArrowResult[] }> | null;
}

/** Every active checkpoint page of `project` (raw Arrow, in order). */
export function fetchCheckpointPages(project: string): Promise<ArrowResult[]> {
  return fetchAllPages((after) => invoke('checkpoints.list', { project, limit: CHECKPOINT_PAGE, after }), { maxPages: MAX_CHECKPOINT_PAGES });
}

/** Summary and checkpoint pages of `project`, fetched in parallel. */
export async function fetchHistory(project: string): Promise<{ readonly summary: ProjectSummary; readonly checkpointPages: readonly ArrowResult[] }> {
  const [summary, checkpointPages] = await Promise.all([invoke('project.summary', { project }), fetchCheckpointPages(project)]);
  return { summary, checkpointPages };
}

let pending: Promise<BootData> | null = null;

/** Starts the boot calls (once per page load). */
export function startBoot(): Promise<BootData> {
  pending ??= invoke('app.session', {}).then((session) => {
    const history = session.project === null ? null : fetchHistory(session.project.project);
    // Handled where it is awaited; never an unhandled rejection meanwhile.
    history?.catch(() => undefined);
    return { session, history };
  });
  return pending;
}
