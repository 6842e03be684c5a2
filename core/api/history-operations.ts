// history.* / retention.* operations: each a call into core/history or the
// project's retention setting.
import { historyPage, retentionPolicy } from '../history/history-page';
import { userCursorKey } from '../paging/cursor-key';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';

/** history.list, retention.show and retention.set implementations. */
export function historyOperations(projects: SessionTable<ProjectSession>) {
  return {
    'history.list': async ({ project, limit, after, kind, name, generation_uuid }) =>
      historyPage(projects.get(project).checkpoints(), { limit, after, kind, name, generation_uuid }, () => userCursorKey()),
    'retention.show': async ({ project }) => retentionPolicy(projects.get(project).project),
    'retention.set': async ({ project, retain_ancestors, timeout_ms }) => {
      const previous = await projects.get(project).project.setRetainAncestors(retain_ancestors, { timeoutMs: timeout_ms ?? 0 });
      return { retain_ancestors, previous, source: 'workspace' as const };
    },
  } satisfies PartialImplementations;
}
