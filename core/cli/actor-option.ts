// `--actor NAME|UUID` and `GF_ACTOR`, for every write command: who makes the
// change. A UUID is recorded as it is; a display name as the actor UUID
// derived from it, remembered in the app's configuration folder so the app
// shows the name (`actor.resolve`, through the dispatcher like everything else).
import { Option } from 'commander';
import { ACTOR_ENV } from '../contract/actor';
import type { OperationInput, OperationName, OperationResult } from '../contract/operations';

/** The `--actor` option of a write command. */
export function actorOption(): Option {
  return new Option('--actor <name-or-uuid>', `who makes this change: a display name or an actor UUID (default: $${ACTOR_ENV})`);
}

type Call = <N extends OperationName>(op: N, request: OperationInput<N>) => Promise<OperationResult<N>>;

/** The actor UUID a write records: `--actor`, else `GF_ACTOR`, else none. */
export async function resolveActor(call: Call, given: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const text = given ?? env[ACTOR_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  return (await call('actor.resolve', { actor: text })).actor_uuid;
}
