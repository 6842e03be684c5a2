/** Global set-up for the unit project: nothing shared yet (the Postgres harness is per-suite). */
export function setup(): void {}
