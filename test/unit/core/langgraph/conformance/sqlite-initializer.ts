import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { SqliteCheckpointerAdapter } from '../../../../../core/langgraph';
import type { CheckpointerPortInitializer, PortUnderTest } from './types';

/**
 * The port conformance initializer of the SQLite adapter: one database file
 * for the suite (so a fresh adapter reads what another wrote), closed after each case.
 */
export function sqliteInitializer(): CheckpointerPortInitializer {
  let dir: string | undefined;
  let open: { close(): Promise<void> | void }[] = [];
  const path = (): string => {
    if (dir === undefined) throw new Error('sqlite initializer used before beforeAll');
    return join(dir, 'threads.sqlite');
  };
  return {
    name: 'SqliteCheckpointerAdapter',
    async beforeAll() {
      dir = mkdtempSync(join(tmpdir(), 'gf-lg-port-'));
    },
    async afterAll() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
    async create(): Promise<PortUnderTest> {
      const adapter = new SqliteCheckpointerAdapter({ path: path() });
      open.push(adapter);
      // One synchronous connection: open once saver() has resolved, until close().
      let db: { readonly open: boolean } | undefined;
      void adapter.saver().then((s) => (db = s.db), () => undefined);
      return { adapter, poolTotal: () => (db?.open === true ? 1 : 0), checkedOut: () => 0, poolIdle: () => (db?.open === true ? 1 : 0), pooled: false };
    },
    async bare(): Promise<BaseCheckpointSaver> {
      const saver = SqliteSaver.fromConnString(path());
      open.push({ close: () => void saver.db.close() });
      return saver;
    },
    async destroy() {
      const closing = open;
      open = [];
      for (const o of closing) await o.close();
    },
  };
}
