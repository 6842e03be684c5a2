import type { Table } from 'apache-arrow';
import { EPISTEMIC_HYPOTHESIS, KNOWLEDGE_EVIDENCE_LINK, WORKSPACE_CONFIGURATION, WORKSPACE_ONTOLOGY, encodeRecords, recordsFromTable } from '../../core/participants/index';
import type { RecordFamily } from '../../core/participants/index';
import type { ParticipantChange, Project, PublishRequest } from '../../core/project/index';
import { putConfig, putEdges, putNodes, testUuid } from './project-fixtures';

/** The fixed history of the "later" fixture: four generations (the oldest two fall out of a window of 2 on the fifth). */
export const LATER_HISTORY: readonly ((parent: string | null) => PublishRequest)[] = [
  (parent) => ({ parent, changes: [putNodes(3, 'a'), putEdges(2, 'a')], transactionUuid: testUuid('txn-h1') }),
  (parent) => ({ parent, changes: [putConfig('h2')], transactionUuid: testUuid('txn-h2') }),
  (parent) => ({ parent, changes: [putConfig('h3'), putEdges(1, 'a')], transactionUuid: testUuid('txn-h3') }),
  (parent) => ({ parent, changes: [putConfig('h4')], transactionUuid: testUuid('txn-h4') }),
];

/** The publication a crash test interrupts, by scenario name; deterministic UUIDs. */
export function scenarioRequest(name: string, parent: string | null): PublishRequest {
  if (name === 'first') {
    return { parent, changes: [putNodes(3, 'f'), putEdges(2, 'f')], transactionUuid: testUuid('txn-first') };
  }
  if (name === 'later') {
    return { parent, changes: [putNodes(5, 'a'), putConfig('later')], transactionUuid: testUuid('txn-later') };
  }
  throw new Error(`unknown scenario ${name}`);
}

/**
 * The publication a crash test interrupts on the demo (see demo-later-changes.ts), from the project's CURRENT:
 * it changes the ontology and configuration (strict → advisory, together), knowledge (its last evidence link
 * dropped) and epistemic records (a proposed hypothesis restated), carrying the rest forward.
 */
export function demoScenarioRequest(project: Project<Table>): PublishRequest {
  const lease = project.lease();
  try {
    const rows = (family: RecordFamily): Record<string, unknown>[] => recordsFromTable(family, lease.readTable(family.key) as Table);
    const put = (family: RecordFamily, records: readonly object[]): ParticipantChange => ({ kind: 'put', capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId, bytes: encodeRecords(family, records) });
    const advisory = (family: RecordFamily, field: string): ParticipantChange => put(family, rows(family).map((r) => (r['field'] === field ? { ...r, value: '"advisory"' } : r)));
    const hypotheses = rows(EPISTEMIC_HYPOTHESIS);
    const restated = hypotheses.findIndex((h) => h['status'] === 'proposed');
    return {
      parent: lease.generationUuid,
      changes: [
        advisory(WORKSPACE_ONTOLOGY, 'mode'),
        advisory(WORKSPACE_CONFIGURATION, 'ontology_mode'),
        put(KNOWLEDGE_EVIDENCE_LINK, rows(KNOWLEDGE_EVIDENCE_LINK).slice(0, -1)),
        put(EPISTEMIC_HYPOTHESIS, hypotheses.map((h, i) => (i === restated ? { ...h, statement: `${String(h['statement'])} (restated)` } : h))),
      ],
      transactionUuid: testUuid('txn-demo'),
    };
  } finally {
    lease.release();
  }
}
