import { GfError } from '../errors';

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
  'project.after_journal_published',
  'project.after_gc_move',
  'project.after_gc_delete',
] as const;

/** One named failpoint. */
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

/** The environment variable the harness sets; read once, at module load. */
export const FAILPOINT_ENV = 'GF_FAILPOINT';

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

interface Armed {
  readonly name: FailpointName;
  readonly mode: 'kill' | 'error';
}

function parseSpec(spec: string | undefined): Armed | undefined {
  if (spec === undefined || spec === '') return undefined;
  const isError = spec.endsWith('.error');
  const name = isError ? spec.slice(0, -'.error'.length) : spec;
  if (!(FAILPOINT_NAMES as readonly string[]).includes(name)) return undefined;
  return { name: name as FailpointName, mode: isError ? 'error' : 'kill' };
}

let armed: Armed | undefined = parseSpec(process.env[FAILPOINT_ENV]);

/**
 * Arms (or with `undefined` disarms) one failpoint in this process.
 *
 * For in-process tests of `.error` variants; the harness for kill variants
 * uses the environment variable in a child process. Unknown names disarm.
 */
export function armFailpointForTesting(spec: string | undefined): void {
  armed = parseSpec(spec);
}

/**
 * Marks one protocol instant; inert unless this exact failpoint is armed.
 *
 * Each fires once. The plain variant ends the process abruptly (SIGKILL to
 * itself, as if the machine stopped); the `.error` variant throws `GF_IO`
 * carrying the `committed` value the protocol promises at that instant.
 */
export function failpoint(name: FailpointName): void {
  if (armed === undefined || armed.name !== name) return;
  const mode = armed.mode;
  armed = undefined;
  if (mode === 'kill') {
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL is delivered asynchronously on some kernels; never continue past the instant.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  throw new GfError('GF_IO', 'injected failure', { failpoint: name }, committedAt(name));
}
