import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { tamperSqliteRow } from '../../../../../core/chain/sqlite/sqlite-tamper';
import { runChainConformance } from '../conformance';
import { crashInsideLock } from '../conformance/crash-child';

const roots = new Map<SqliteChainStore, string>();

runChainConformance({
  name: 'sqlite',
  numRuns: 8,
  async create({ clock }) {
    const root = mkdtempSync(join(tmpdir(), 'gf-chain-'));
    const store = new SqliteChainStore(root, { clock });
    roots.set(store, root);
    return store;
  },
  async destroy(store) {
    await store.close();
    rmSync(roots.get(store) ?? '', { recursive: true, force: true });
    roots.delete(store);
  },
  tamper: async (store, workflowId, sequence, fields) => tamperSqliteRow(roots.get(store) ?? '', workflowId, sequence, fields),
  crashInsideLock: async (store, _workflowId, event) => crashInsideLock(['sqlite', roots.get(store) ?? ''], event),
});
