// Who did it, in the words the app uses: the display names of the actors a
// result names, resolved through the dispatcher (`actor.resolve`) like
// everything else. Loaded with the engine (through ./lazy-engine), never for `gf --help`.
import { shortActorId } from '../contract/actor';
import { UUID_PATTERN, type OperationInput, type OperationName, type OperationResult } from '../contract/operations';

type Call = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/** Actor UUID → display name, for the actors that have one. */
export type ActorNames = ReadonlyMap<string, string>;

/**
 * The display names of `actors`, as the app's History shows them: the app's
 * own user and every actor seen before by name (`actor.resolve` of a UUID
 * reads the app's actors.json and writes nothing). An actor never seen by
 * name is absent from the map.
 */
export async function actorNames(call: Call, actors: Iterable<string | null>): Promise<ActorNames> {
  const names = new Map<string, string>();
  for (const actor of new Set(actors)) {
    // Only a recorded UUID is looked up: resolving free text would derive (and remember) a new actor.
    if (actor === null || !UUID_PATTERN.test(actor)) continue;
    const { display_name } = await call('actor.resolve', { actor });
    if (display_name !== null) names.set(actor, display_name);
  }
  return names;
}

/**
 * An actor for a line of text: its name, else its short id; with `ids` the
 * full UUID beside the name (or alone, for an actor never seen by name).
 */
export function actorText(names: ActorNames, actor: string, ids: boolean): string {
  const name = names.get(actor);
  if (name === undefined) return ids ? actor : shortActorId(actor);
  return ids ? `${name} (${actor})` : name;
}
