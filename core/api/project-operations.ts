// project.* operations: open/create a workspace, summarize its history.
import { basename } from 'node:path';
import type { Table } from 'apache-arrow';
import { createProject, type GenerationInfo, type Project } from '../project/index';
import { registryCatalog } from '../participants/index';
import { openCheckpointedProject } from '../checkpoints/checkpoints';
import { WORKSPACE_RESTORATION_TRANSITION, familyKey, recordsFromTable } from '../participants/index';
import type { GenerationSummary, ProjectOpened, RestorationSummary } from '../contract/operations';
import { microsIso } from '../contract/time';
import type { PartialImplementations } from './dispatcher';
import type { SessionTable } from './sessions';
import { leaseRecordedGeneration } from '../project/named-lease';
import { workspaceChangeToken } from './change-token';
import { requireAbsolute } from './absolute-path';

/** An open project behind a session handle. */
export interface ProjectSession {
  readonly project: Project<Table>;
  readonly label: string;
  /** Extra resources tied to the project (chain stores, views), closed with it. */
  readonly closers: Set<() => Promise<void> | void>;
}

const PROJECT_DIR = { sentence: 'the project directory must be an absolute path', field: 'path' } as const;

function register(projects: SessionTable<ProjectSession>, project: Project<Table>, dir: string): ProjectOpened {
  const closers = new Set<() => Promise<void> | void>();
  const session: ProjectSession = { project, label: basename(dir) || 'project', closers };
  const handle = projects.add({
    value: session,
    close: async () => {
      for (const c of [...closers]) await c();
      closers.clear();
    },
  });
  return { project: handle, label: session.label, path: dir };
}

const RESTORATION_KEY = familyKey(WORKSPACE_RESTORATION_TRANSITION.capabilityId, WORKSPACE_RESTORATION_TRANSITION.recordFamilyId);

/**
 * Restoration records already read, per project: a generation's manifest never
 * changes under its (uuid, digest), so a refreshed history reads no table twice.
 */
const restorations = new WeakMap<Project<Table>, Map<string, RestorationSummary | null>>();

/** The restoration record published WITH this generation (memoized per project). */
function restorationOf(project: Project<Table>, generationUuid: string, manifestSha256: string): RestorationSummary | null {
  let known = restorations.get(project);
  if (known === undefined) restorations.set(project, (known = new Map()));
  const key = `${generationUuid}/${manifestSha256}`;
  if (known.has(key)) return known.get(key) ?? null;
  const found = readRestoration(project, generationUuid, manifestSha256);
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
export function projectOperations(projects: SessionTable<ProjectSession>) {
  return {
    // Opened with the checkpoint retention pins, so cleanup never drops a checkpointed generation.
    'project.open': async ({ path }) => register(projects, await openCheckpointedProject(requireAbsolute(path, PROJECT_DIR)), path),
    'project.create': async ({ path }) => {
      const created = await createProject<Table>(requireAbsolute(path, { ...PROJECT_DIR, committed: false }), { catalog: registryCatalog });
      return register(projects, await openCheckpointedProject(created.root), path);
    },
    'project.close': async ({ project }) => ({ closed: await projects.close(project) }),
    'project.changes': async ({ project }) => ({ token: workspaceChangeToken(projects.get(project).project.root) }),
    'project.summary': async ({ project }) => {
      const p = projects.get(project).project;
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
        restoration: g.manifestSha256 === null ? null : restorationOf(p, g.generationUuid, g.manifestSha256),
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
