// workspace.* operations (ADR-0014 workspace documents) over core/workspace.
import { resultTable } from '../participants/result-tables';
import { WorkspaceDocuments, configurationInfo, ontologyInfo } from '../workspace/index';
import type { CheckpointView } from '../views/checkpoint-view';
import { arrowResult } from './arrow-result';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';

/** workspace.* implementations. */
export function workspaceOperations(projects: SessionTable<ProjectSession>, views: SessionTable<CheckpointView>) {
  const docs = (handle: string, writerTimeoutMs?: number): WorkspaceDocuments =>
    new WorkspaceDocuments(projects.get(handle).project, writerTimeoutMs === undefined ? {} : { writerTimeoutMs });
  return {
    'workspace.ontology': async ({ project, view }) =>
      arrowResult(resultTable('workspace_ontology_info@1', [view !== undefined ? ontologyInfo(views.get(view)) : docs(project ?? '').ontology()]), null),
    'workspace.configuration': async ({ project, view }) =>
      arrowResult(resultTable('workspace_configuration_info@1', [view !== undefined ? configurationInfo(views.get(view)) : docs(project ?? '').configuration()]), null),
    'workspace.adopt_ontology': async ({ project, source, source_format, mode, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await docs(project, timeout_ms).adoptOntology({ source, sourceFormat: source_format, mode, idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? null });
      return arrowResult(resultTable('ontology_receipt@1', [receipt]), null);
    },
    'workspace.clear_ontology': async ({ project, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await docs(project, timeout_ms).clearOntology({ idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? null });
      return arrowResult(resultTable('ontology_receipt@1', [receipt]), null);
    },
  } satisfies PartialImplementations;
}
