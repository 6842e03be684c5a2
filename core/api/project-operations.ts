// project.* operations: open/create a workspace, summarize its history.
import type { Table } from 'apache-arrow';
import { createProject, type GenerationInfo, type Project } from '../project/index';
import { registryCatalog } from '../participants/index';
import { WORKSPACE_RESTORATION_TRANSITION, familyKey, recordsFromTable } from '../participants/index';
import type { GenerationSummary, ProjectOpened, RestorationSummary } from '../contract/operations';
import { microsIso } from '../contract/time';
import type { PartialImplementations } from './dispatcher';
import type { SessionTable } from './sessions';
import { leaseRecordedGeneration } from '../project/named-lease';
import { workspaceChangeToken } from './change-token';
import { requireAbsolute } from './absolute-path';
import { ProjectSession, type ProjectSessionOptions } from './project-session';

const PROJECT_DIR = { sentence: 'the project directory must be an absolute path', field: 'path' } as const;

function register(projects: SessionTable<ProjectSession>, session: ProjectSession, dir: string): ProjectOpened {
  const handle = projects.add({ value: session, close: () => session.close() });
  return { project: handle, label: session.label, path: dir };
}

const RESTORATION_KEY = familyKey(WORKSPACE_RESTORATION_TRANSITION.capabilityId, WORKSPACE_RESTORATION_TRANSITION.recordFamilyId);

/** The restoration record published WITH this generation (memoized in the session: a manifest never changes under its digest). */
function restorationOf(session: ProjectSession, generationUuid: string, manifestSha256: string): RestorationSummary | null {
  const known = session.caches.restorations;
  const key = `${generationUuid}/${manifestSha256}`;
  if (known.has(key)) return known.get(key) ?? null;
  const found = readRestoration(session.project, generationUuid, manifestSha256);
  known.set(key, found);
  return found;
}

/** Reads the restoration record published WITH this generation (not one carried forward). */
function readRestoration(project: Project<Table>, generationUuid: string, manifestSha256: string): RestorationSummary | null {
  const lease = leaseRecordedGeneration(project, generationUuid, manifestSha256);
  try {
    if (lease.participant(RESTORATION_KEY) === undefined) return null;
    const table = lease.readTable(RESTORATION_KEY);
    if (table === undefined) return null;
    const row = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, table).find((r) => r['restored_generation_uuid'] === generationUuid);
    if (row === undefined) return null;
    return {
      restoration_uuid: String(row['restoration_uuid']),
      checkpoint_uuid: String(row['checkpoint_uuid']),
      source_generation_uuid: String(row['source_generation_uuid']),
      prior_current_generation_uuid: String(row['prior_current_generation_uuid']),
      restored_at: microsIso(BigInt(row['restored_at'] as bigint | number)),
    };
  } finally {
    lease.release();
  }
}

/**
 * Every complete generation still on disk, newest first.
 *
 * CURRENT's parent line first (`history`, which stops where retention cut
 * it), then the other retained generations (e.g. older ones a checkpoint
 * pins), each child before its parent; ties by UUID.
 */
export function retainedTimeline(history: readonly GenerationInfo[], all: readonly GenerationInfo[]): GenerationInfo[] {
  const seen = new Set(history.map((g) => g.generationUuid));
  let rest = all.filter((g) => g.status === 'complete' && !seen.has(g.generationUuid));
  const out = [...history];
  while (rest.length > 0) {
    const parents = new Set(rest.map((g) => g.parentGenerationUuid));
    const leaves = rest.filter((g) => !parents.has(g.generationUuid));
    const next = leaves.length > 0 ? leaves : rest; // a parent cycle cannot happen on disk; never loop
    out.push(...next);
    const taken = new Set(next.map((g) => g.generationUuid));
    rest = rest.filter((g) => !taken.has(g.generationUuid));
  }
  return out;
}

/** project.* implementations over `core/project`. */
export function projectOperations(projects: SessionTable<ProjectSession>, sessionOptions: ProjectSessionOptions) {
  return {
    // Opened with the checkpoint retention pins, so cleanup never drops a checkpointed generation.
    'project.open': async ({ path }) => register(projects, await ProjectSession.open(requireAbsolute(path, PROJECT_DIR), path, sessionOptions), path),
    'project.create': async ({ path }) => {
      const created = await createProject<Table>(requireAbsolute(path, { ...PROJECT_DIR, committed: false }), { catalog: registryCatalog });
      return register(projects, await ProjectSession.open(created.root, path, sessionOptions), path);
    },
    'project.close': async ({ project }) => ({ closed: await projects.close(project) }),
    'project.changes': async ({ project }) => ({ token: workspaceChangeToken(projects.get(project).project.root) }),
    'project.summary': async ({ project }) => {
      const session = projects.get(project);
      const p = session.project;
      const history = p.history();
      const current = history[0];
      const retained = retainedTimeline(history, p.listGenerations());
      const onDisk = new Set(retained.map((g) => g.generationUuid));
      const generations: GenerationSummary[] = retained.map((g) => ({
        generation_uuid: g.generationUuid,
        parent_generation_uuid: g.parentGenerationUuid,
        manifest_sha256: g.manifestSha256 ?? '',
        participant_count: g.participantCount,
        is_current: g.isCurrent,
        restoration: g.manifestSha256 === null ? null : restorationOf(session, g.generationUuid, g.manifestSha256),
      }));
      return {
        initialized: current !== undefined,
        current: current === undefined ? null : { generation_uuid: current.generationUuid, manifest_sha256: current.manifestSha256 ?? '' },
        generations,
        older_generations_cleaned_up: retained.some((g) => g.parentGenerationUuid !== null && !onDisk.has(g.parentGenerationUuid)),
      };
    },
  } satisfies PartialImplementations;
}
