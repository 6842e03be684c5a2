// Named failpoints of the registry's pair-commit protocol, armed only by tests.
import { defineFailpoints } from '../failpoints';

/**
 * Failpoints of the registry pair-commit protocol, in protocol order.
 *
 * The first four are ADR-0014's public vocabulary; the others mark the
 * remaining instants so every row of the recovery table can be reached by a
 * real crash. Same mechanism as the project's failpoints (`core/project/
 * failpoints.ts`, whose closed name list is the project's own): the env
 * variable `GF_FAILPOINT` names one; the plain variant SIGKILLs the process,
 * the `.error` variant throws `GF_IO`.
 */
export const REGISTRY_FAILPOINTS = [
  'checkpoint.registry.after_file_fsync',
  'checkpoint.registry.after_intent_install',
  'checkpoint.registry.before_replace',
  'checkpoint.registry.after_replace',
  'checkpoint.registry.after_checksum_replace',
  'checkpoint.registry.after_dir_fsync',
  'checkpoint.registry.after_intent_remove',
] as const;
export type RegistryFailpoint = (typeof REGISTRY_FAILPOINTS)[number];

export { FAILPOINT_ENV } from '../failpoints';

const points = defineFailpoints(REGISTRY_FAILPOINTS);

/** Arms (or disarms with `undefined`) one registry failpoint in this process, for `.error` tests. */
export function armRegistryFailpointForTesting(spec: string | undefined): void {
  points.arm(spec);
}

/**
 * Marks one protocol instant; inert unless exactly this failpoint is armed. Fires once.
 *
 * The `.error` variant throws `GF_IO` without a `committed` value: the
 * writer settles the registry through recovery under its locks and then
 * reports whether the next revision became visible.
 */
export function registryFailpoint(name: RegistryFailpoint): void {
  points.hit(name);
}
