// Participants the pictures' benchmarks publish: a few graph nodes, and
// configuration documents that differ per publication (a cheap change).
import { DEFAULT_CONFIGURATION, GRAPH_NODE, configurationDocumentBytes, encodeRecords } from '../core/participants/index';
import type { ParticipantChange } from '../core/project/index';
import { sha256, uuidV8 } from '../core/canonical/index';

const T0 = 1_700_000_000_000_000n;
const uuid = (label: string): string => uuidV8(sha256(new TextEncoder().encode(label)));

/** A put of `n` graph nodes. */
export function nodesChange(n: number): ParticipantChange {
  const records = Array.from({ length: n }, (_, i) => ({ node_uuid: uuid(`timeline-bench-node-${i}`), class_id: 'paper', label: `Paper ${i}`, properties: null, created_at: T0 + BigInt(i), updated_at: null }));
  return { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, records) };
}

/** A put of the workspace configuration whose embedding model id names publication `i`. */
export function configurationChange(i: number): ParticipantChange {
  return { kind: 'put', capabilityId: 'workspace', recordFamilyId: 'configuration', bytes: configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, embedding_configuration: { model_id: `model-${i}` } }) };
}
