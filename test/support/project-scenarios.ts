import type { PublishRequest } from '../../core/project/index';
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
