import { sha256, uuidV8 } from '../../core/canonical/index';
import { DEFAULT_CONFIGURATION, GRAPH_EDGE, GRAPH_NODE, configurationDocumentBytes, encodeRecords } from '../../core/participants/index';
import type { ParticipantChange } from '../../core/project/index';

/** Deterministic UUID for test data: uuid_v8(SHA-256(label)). */
export function testUuid(label: string): string {
  return uuidV8(sha256(new TextEncoder().encode(label)));
}

const T0 = 1_700_000_000_000_000n;

/** `n` graph nodes named by `tag` (same tag and n → same bytes). */
export function nodeRecords(n: number, tag = 'n'): object[] {
  return Array.from({ length: n }, (_, i) => ({
    node_uuid: testUuid(`${tag}-node-${i}`),
    class_id: 'paper',
    label: `Node ${tag} ${i}`,
    properties: null,
    created_at: T0 + BigInt(i),
    updated_at: null,
  }));
}

/** A put of graph/node. */
export function putNodes(n: number, tag = 'n'): ParticipantChange {
  return { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, nodeRecords(n, tag)) };
}

/** A put of graph/edge chaining the first `n` nodes of `tag` (edges i → i+1). */
export function putEdges(n: number, tag = 'n', kind = 'cites'): ParticipantChange {
  const recs = Array.from({ length: n }, (_, i) => ({
    source_node_uuid: testUuid(`${tag}-node-${i}`),
    target_node_uuid: testUuid(`${tag}-node-${i + 1}`),
    kind,
    weight: 1,
    created_at: T0,
  }));
  return { kind: 'put', capabilityId: 'graph', recordFamilyId: 'edge', bytes: encodeRecords(GRAPH_EDGE, recs) };
}

/**
 * A put of workspace/configuration (workspace_configuration@1) that differs per label.
 *
 * The label picks the recognized embedding `model_id` setting, so two labels give two documents.
 */
export function putConfig(label: string): ParticipantChange {
  const modelId = label.toLowerCase().replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]/, 'x').slice(0, 128);
  return {
    kind: 'put',
    capabilityId: 'workspace',
    recordFamilyId: 'configuration',
    bytes: configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, embedding_configuration: { model_id: modelId } }),
  };
}
