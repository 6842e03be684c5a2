// Child process of the E2 test: a fresh adapter in a fresh process reads one workflow back.
// argv: <schema> <workflow id>; the connection string comes from GF_CHAIN_POSTGRES_URL.
import { CHAIN_POSTGRES_URL_ENV, openPostgresChainStore, resolveChainPostgresTarget } from '../../../../../core/chain/postgres/postgres-config';

const [schema, workflowId] = process.argv.slice(2);
const target = resolveChainPostgresTarget({ env: process.env });
if (target === null || schema === undefined || workflowId === undefined) {
  process.stderr.write(`usage: ${CHAIN_POSTGRES_URL_ENV}=… postgres-reader.child.ts <schema> <workflow id>\n`);
  process.exit(2);
}
const { store, close } = await openPostgresChainStore(target.url, { schema, max: 1 });
try {
  const rows = [];
  for await (const r of store.readPersistedRows(workflowId)) rows.push({ ...r, event_bytes: Buffer.from(r.event_bytes).toString('base64') });
  const events = [];
  for await (const e of store.readAllForWorkflow(workflowId)) events.push(e);
  const tail = await store.tailChainHead(workflowId);
  process.stdout.write(JSON.stringify({ pid: process.pid, rows, events, tail }));
} finally {
  await close();
}
