import { GfError } from './errors';

/** The environment variable a test harness sets to arm one failpoint; read once per set, at module load. */
export const FAILPOINT_ENV = 'GF_FAILPOINT';

/** A closed set of named protocol instants that tests can stop a writer at. */
export interface FailpointSet<N extends string> {
  /** Marks one instant; inert unless exactly this failpoint is armed. Fires once. */
  hit(name: N): void;
  /** Arms (or with `undefined` disarms) one failpoint in this process; unknown names disarm. */
  arm(spec: string | undefined): void;
}

/**
 * Declares a failpoint vocabulary (the mechanism the project store and the checkpoint registry share).
 *
 * `GF_FAILPOINT=<name>` ends the process abruptly at that instant (SIGKILL to
 * itself, as if the machine stopped); `<name>.error` throws `GF_IO` instead,
 * carrying `committedAt(name)` when the protocol promises a value there.
 */
export function defineFailpoints<N extends string>(names: readonly N[], committedAt?: (name: N) => boolean): FailpointSet<N> {
  type Armed = { readonly name: N; readonly mode: 'kill' | 'error' };
  const parse = (spec: string | undefined): Armed | undefined => {
    if (spec === undefined || spec === '') return undefined;
    const isError = spec.endsWith('.error');
    const name = isError ? spec.slice(0, -'.error'.length) : spec;
    if (!(names as readonly string[]).includes(name)) return undefined;
    return { name: name as N, mode: isError ? 'error' : 'kill' };
  };
  let armed = parse(process.env[FAILPOINT_ENV]);
  return {
    arm(spec) {
      armed = parse(spec);
    },
    hit(name) {
      if (armed === undefined || armed.name !== name) return;
      const mode = armed.mode;
      armed = undefined;
      if (mode === 'kill') {
        process.kill(process.pid, 'SIGKILL');
        // SIGKILL is delivered asynchronously on some kernels; never continue past the instant.
        for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
      }
      throw new GfError('GF_IO', 'injected failure', { failpoint: name }, committedAt?.(name));
    },
  };
}
