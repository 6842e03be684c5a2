import { join } from 'node:path';
import { DEMO_PATCH_STEPS, tamperDemoLedger, writeDemoLedgers, type DemoLedgerLink } from './demo-ledgers';
import type { ChainStore, TransitionEvent } from '../chain/port';
import { SqliteChainStore } from '../chain/sqlite/sqlite-store';
import { invariant } from '../errors';
import { LAYOUT } from '../project/layout';

/** The project sub-directory holding the workflow ledgers (SQLite, one database per workflow). */
export const DEMO_CHAIN_DIR = LAYOUT.chain;

/**
 * Writes the demo's workflow ledgers into `<dir>/chain` and tampers the one meant to fail.
 *
 * `manifestSha256` lists the demo's generations in publication order; the
 * scripted `patch_applied` steps cite them one each, in that order
 * (`sha256:<manifest sha256>`), so every cited digest is a real generation of
 * the project. Times come from `start` only: transitions from the scripts,
 * and each row's audit `written_at` is its own event's `occurred_at` plus one
 * second, so the same inputs give the same rows.
 */
export async function writeDemoChain(dir: string, manifestSha256: readonly string[], start: Date): Promise<readonly DemoLedgerLink[]> {
  invariant(manifestSha256.length >= DEMO_PATCH_STEPS, 'the demo publishes a generation for every scripted patch step');
  const root = join(dir, DEMO_CHAIN_DIR);
  let writtenAt = start;
  const sqlite = new SqliteChainStore(root, { clock: () => writtenAt });
  // The scripted clock for `written_at`: a second after the event being appended.
  const store: ChainStore = {
    append: (event: TransitionEvent) => {
      writtenAt = new Date(Date.parse(event.occurred_at) + 1_000);
      return sqlite.append(event);
    },
    readAllForWorkflow: (id) => sqlite.readAllForWorkflow(id),
    tailChainHead: (id) => sqlite.tailChainHead(id),
    lock: (id, fn) => sqlite.lock(id, fn),
    close: () => sqlite.close(),
  };
  let links: readonly DemoLedgerLink[];
  try {
    links = await writeDemoLedgers(store, { manifestSha256: manifestSha256.slice(0, DEMO_PATCH_STEPS), start });
  } finally {
    await sqlite.close();
  }
  await tamperDemoLedger(root);
  return links;
}
