// The formatter (Arrow, the contract's schemas) and the session (the facade and
// the engine) load when a command runs, never for `gf --help`: commands import
// them through here.
import type * as ActorNames from './actor-names';
import type * as Output from './output';
import type * as Session from './session';
import type * as ThreadsSession from './threads-session';

/** The CLI's result formatters and its in-process session, loaded on first use. */
export type CliEngine = typeof Output & typeof Session & typeof ActorNames;

/** Loads the formatters, the session and the actor names (cached by the module loader). */
export async function cliEngine(): Promise<CliEngine> {
  const [output, session, actors] = await Promise.all([import('./output'), import('./session'), import('./actor-names')]);
  return { ...output, ...session, ...actors };
}

/** `gf threads`: the formatters and a project-less session (LangGraph readers load on first call). */
export async function cliThreadsEngine(): Promise<typeof Output & typeof ThreadsSession> {
  const [output, session] = await Promise.all([import('./output'), import('./threads-session')]);
  return { ...output, ...session };
}
