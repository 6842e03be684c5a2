// workspace.* operations (ADR-0014 workspace documents) over core/workspace.
import { Field, Schema, Uint32, makeData } from 'apache-arrow';
import type { Data, Table } from 'apache-arrow';
import { arrowFieldOf, buildColumn, tableOfColumns } from '../participants/columns';
import type { CellValue, FieldSpec } from '../participants/columns';
import { ONTOLOGY_RECEIPT_COLUMNS, RESULT_SCHEMA_KEY, WORKSPACE_CONFIGURATION_INFO_COLUMNS, WORKSPACE_ONTOLOGY_INFO_COLUMNS } from '../contract/results';
import { WorkspaceDocuments, configurationInfo, ontologyInfo } from '../workspace/index';
import type { CheckpointView } from '../views/checkpoint-view';
import { arrowResult } from './arrow-result';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';

type Kind = FieldSpec['kind'] | 'count';
type Col = { readonly name: string; readonly kind: Kind; readonly nullable: boolean };

/** Columns in the contract's order; the type map must name exactly the contract's columns. */
function fieldsOf<C extends string>(columns: readonly C[], types: { readonly [K in C]: Omit<Col, 'name'> }): readonly Col[] {
  return columns.map((name) => ({ name, ...types[name] }));
}

const ONTOLOGY_INFO = fieldsOf(WORKSPACE_ONTOLOGY_INFO_COLUMNS, {
  mode: { kind: 'utf8', nullable: false },
  class_count: { kind: 'count', nullable: false },
  relation_count: { kind: 'count', nullable: false },
  source_format: { kind: 'utf8', nullable: true },
  contract_version: { kind: 'count', nullable: false },
  canonical_ontology_sha256: { kind: 'digest', nullable: true },
  generation_uuid: { kind: 'uuid', nullable: false },
  document_sha256: { kind: 'digest', nullable: true },
  canonical_ontology: { kind: 'utf8', nullable: true },
});

const CONFIGURATION_INFO = fieldsOf(WORKSPACE_CONFIGURATION_INFO_COLUMNS, {
  ontology_mode: { kind: 'utf8', nullable: false },
  capability_configuration: { kind: 'utf8', nullable: false },
  embedding_configuration: { kind: 'utf8', nullable: false },
  contract_version: { kind: 'count', nullable: false },
  generation_uuid: { kind: 'uuid', nullable: false },
  document_sha256: { kind: 'digest', nullable: true },
});

const RECEIPT = fieldsOf(ONTOLOGY_RECEIPT_COLUMNS, {
  operation: { kind: 'utf8', nullable: false },
  operation_uuid: { kind: 'uuid', nullable: false },
  mode: { kind: 'utf8', nullable: false },
  source_format: { kind: 'utf8', nullable: true },
  canonical_ontology_sha256: { kind: 'digest', nullable: true },
  prior_current_generation_uuid: { kind: 'uuid', nullable: true },
  result_generation_uuid: { kind: 'uuid', nullable: false },
});

function column(c: Col, values: readonly CellValue[]): { field: Field; data: Data } {
  if (c.kind === 'count') {
    const data = new Uint32Array(values.map((v) => Number(v)));
    return { field: new Field(c.name, new Uint32(), c.nullable), data: makeData({ type: new Uint32(), length: values.length, nullCount: 0, data }) };
  }
  const spec: FieldSpec = { name: c.name, kind: c.kind, nullable: c.nullable };
  return { field: arrowFieldOf(spec), data: buildColumn(spec, values) };
}

/** A one-row result table of a registered schema. */
function oneRow(schemaName: string, cols: readonly Col[], row: object): Table {
  const built = cols.map((c) => column(c, [(row as Record<string, CellValue>)[c.name] ?? null]));
  const schema = new Schema(built.map((b) => b.field), new Map([[RESULT_SCHEMA_KEY, schemaName]]));
  return tableOfColumns(schema, built.map((b) => b.data), 1);
}

/** workspace.* implementations. */
export function workspaceOperations(projects: SessionTable<ProjectSession>, views: SessionTable<CheckpointView>) {
  const docs = (handle: string, writerTimeoutMs?: number): WorkspaceDocuments =>
    new WorkspaceDocuments(projects.get(handle).project, writerTimeoutMs === undefined ? {} : { writerTimeoutMs });
  return {
    'workspace.ontology': async ({ project, view }) =>
      arrowResult(oneRow('workspace_ontology_info@1', ONTOLOGY_INFO, view !== undefined ? ontologyInfo(views.get(view)) : docs(project ?? '').ontology()), null),
    'workspace.configuration': async ({ project, view }) =>
      arrowResult(oneRow('workspace_configuration_info@1', CONFIGURATION_INFO, view !== undefined ? configurationInfo(views.get(view)) : docs(project ?? '').configuration()), null),
    'workspace.adopt_ontology': async ({ project, source, source_format, mode, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await docs(project, timeout_ms).adoptOntology({ source, sourceFormat: source_format, mode, idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? null });
      return arrowResult(oneRow('ontology_receipt@1', RECEIPT, receipt), null);
    },
    'workspace.clear_ontology': async ({ project, idempotency_key, actor_uuid, timeout_ms }) => {
      const receipt = await docs(project, timeout_ms).clearOntology({ idempotencyKey: idempotency_key, actorUuid: actor_uuid ?? null });
      return arrowResult(oneRow('ontology_receipt@1', RECEIPT, receipt), null);
    },
  } satisfies PartialImplementations;
}
