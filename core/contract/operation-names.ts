// The names of the contract's operations, and the one rule that says whether a
// string is one. Browser-safe and tiny (no zod, no schemas), so the sandboxed
// preload checks names with the very declaration the dispatcher uses.
// core/contract/ops/<domain>.ts declare each operation (request schema, result) under
// exactly these names (the compiler holds the two together: a name missing
// there, or an operation not named here, fails the build).
import { GfError } from '../errors';

/** Every operation name, in the contract's declaration order. */
export const OPERATION_NAMES = [
  'app.session',
  'app.choose_workspace',
  'project.open',
  'project.create',
  'project.close',
  'project.summary',
  'checkpoints.list',
  'checkpoints.create',
  'checkpoints.delete',
  'checkpoints.diff',
  'checkpoints.diff_stat',
  'operation.cancel',
  'checkpoints.record_change',
  'revert.preview',
  'checkpoints.revert',
  'checkpoints.show',
  'view.open',
  'view.close',
  'view.participants',
  'view.records',
  'view.record',
  'chain.list',
  'chain.read',
  'chain.verify',
  'chain.health',
  'threads.list',
  'threads.history',
  'threads.state',
  'threads.namespaces',
  'threads.diff',
  'threads.restore',
  'threads.prune_preview',
  'threads.prune',
  'threads.health',
  'chain.open',
  'chain.rows',
  'project.publish',
  'demo.create',
  'canonical.vectors',
  'project.doctor',
  'workspace.ontology',
  'workspace.configuration',
  'workspace.adopt_ontology',
  'workspace.clear_ontology',
  'history.list',
  'retention.show',
  'retention.set',
  'graph.find_nodes',
  'graph.neighbourhood',
  'graph.diff',
  'project.changes',
  'actor.show',
  'actor.rename',
  'actor.resolve',
] as const;

/** Every declared operation name. */
export type OperationName = (typeof OPERATION_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(OPERATION_NAMES);

/** True when `name` is a declared operation. */
export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && NAMES.has(name);
}

/** The refusal of a name that is not an operation (this process offers), the same on every surface. */
export function unknownOperation(): GfError {
  return new GfError('GF_VALIDATION', 'unknown operation', {});
}
