// A real writer process for the cross-process tests.
// Usage: node append-child.cjs <root> <workflowId> <count> <tag>
// Prints "ack <transition_id>" after each acknowledged (resolved) append; count 0 = forever.
import { monotonicFactory } from 'ulid';
import { buildTransitionEvent } from '../../../../../core/chain/event';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';

async function run(): Promise<void> {
  const [root, workflowId, countText, tag] = process.argv.slice(2) as [string, string, string, string];
  const count = Number(countText);
  const store = new SqliteChainStore(root);
  const nextId = monotonicFactory();
  for (let i = 0; count === 0 || i < count; i++) {
    const e = buildTransitionEvent(
      { workflow_id: workflowId, prior_state_id: 'plan_ready', next_state_id: 'patch_applied', triggering_outcome: { kind: 'child', detail: `${tag}-${i}` } },
      { newId: (t) => nextId(t) },
    );
    await store.append(e);
    process.stdout.write(`ack ${e.transition_id}\n`);
  }
  await store.close();
}

run().catch((e: unknown) => {
  process.stderr.write(`${(e as { errorId?: string; code?: string }).errorId ?? (e as { code?: string }).code ?? 'error'}\n`);
  process.exit(1);
});
