// The failpoint vocabulary of GENERATIONS.md in protocol order, armed only by tests.
import { defineFailpoints } from '../failpoints';

/**
 * The public failpoint vocabulary of GENERATIONS.md, in protocol order.
 *
 * Tests name these to stop the writer at an exact instant. The order matters:
 * everything before `project.after_current_replace` precedes the one
 * linearization point (the CURRENT rename).
 */
export const FAILPOINT_NAMES = [
  'project.after_format_fsync',
  'project.after_container_dir_fsync',
  'project.after_writer_lock',
  'project.after_journal_preparing',
  'project.after_participant_write',
  'project.after_participant_fsync',
  'project.after_participant_dir_fsync',
  'project.after_journal_staged',
  'project.after_domain_validation',
  'project.after_composite_validation',
  'project.after_journal_validated',
  'project.after_manifest_write',
  'project.after_manifest_fsync',
  'project.after_generation_dir_fsync',
  'project.after_journal_durable',
  'project.after_current_temp_write',
  'project.after_current_temp_fsync',
  'project.before_current_replace',
  'project.after_current_replace',
  'project.after_root_fsync',
  'project.after_lineage_append',
  'project.after_journal_published',
  'project.after_gc_move',
  'project.after_gc_delete',
] as const;

/** One named failpoint. */
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

export { FAILPOINT_ENV } from '../failpoints';

const FIRST_COMMITTED: FailpointName = 'project.after_current_replace';

/**
 * The `committed` value a failpoint's `.error` variant reports.
 *
 * False before the CURRENT rename (the parent, or nothing, stays
 * authoritative); true from `after_current_replace` on. The two container
 * failpoints precede the container's own rename, so nothing exists yet.
 */
export function committedAt(name: FailpointName): boolean {
  return FAILPOINT_NAMES.indexOf(name) >= FAILPOINT_NAMES.indexOf(FIRST_COMMITTED);
}

const points = defineFailpoints(FAILPOINT_NAMES, committedAt);

/**
 * Arms (or with `undefined` disarms) one failpoint in this process.
 *
 * For in-process tests of `.error` variants; the harness for kill variants
 * uses the environment variable in a child process. Unknown names disarm.
 */
export function armFailpointForTesting(spec: string | undefined): void {
  points.arm(spec);
}

/**
 * Marks one protocol instant; inert unless this exact failpoint is armed.
 *
 * Each fires once. The plain variant ends the process abruptly; the `.error`
 * variant throws `GF_IO` carrying the `committed` value the protocol promises
 * at that instant.
 */
export function failpoint(name: FailpointName): void {
  points.hit(name);
}
