// Child process of the conformance case `lock-append-survives-crash`: holds lock(wf, fn), appends one event
// inside fn, prints "ack <transition id>" once the append resolved, and never lets fn settle (the parent kills it).
// argv: sqlite <root> <event json> | postgres <schema> <event json>; Postgres's connection string comes from GF_CHAIN_POSTGRES_URL.
import { parseTransitionEvent } from '../../../../../core/chain/event';
import type { ChainStore } from '../../../../../core/chain/port';
import { CHAIN_POSTGRES_URL_ENV, openPostgresChainStore, resolveChainPostgresTarget } from '../../../../../core/chain/postgres/postgres-config';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';

const [kind, where, json] = process.argv.slice(2) as [string, string, string];
const event = parseTransitionEvent(JSON.parse(json));
let store: ChainStore;
if (kind === 'sqlite') store = new SqliteChainStore(where);
else {
  const target = resolveChainPostgresTarget({ env: process.env });
  if (target === null) throw new Error(`${CHAIN_POSTGRES_URL_ENV} is not set`);
  store = (await openPostgresChainStore(target.url, { schema: where, max: 1 })).store;
}
await store.lock(event.workflow_id, async () => {
  await store.append(event);
  process.stdout.write(`ack ${event.transition_id}\n`);
  await new Promise<never>(() => undefined);
});
