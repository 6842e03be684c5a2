// LangGraph's official conformance suite against the SQLite adapter's saver()
// and, in the same run, against bare upstream SqliteSaver (real database files).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { SqliteCheckpointerAdapter } from '../../../../core/langgraph';
import { runValidation, SQLITE_KNOWN_FAILURES } from './validation-support';

const dir = mkdtempSync(join(tmpdir(), 'gf-lg-validate-'));
let n = 0;
const adapters = new Map<unknown, SqliteCheckpointerAdapter>();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runValidation(
  {
    checkpointerName: 'gf SqliteCheckpointerAdapter',
    createCheckpointer: async () => {
      const adapter = new SqliteCheckpointerAdapter({ path: join(dir, `adapter-${(n += 1)}.sqlite`) });
      const saver = await adapter.saver();
      adapters.set(saver, adapter);
      return saver;
    },
    destroyCheckpointer: async (saver) => {
      await adapters.get(saver)?.close();
      adapters.delete(saver);
    },
  },
  SQLITE_KNOWN_FAILURES,
);

runValidation(
  {
    checkpointerName: 'bare upstream SqliteSaver',
    createCheckpointer: () => SqliteSaver.fromConnString(join(dir, `bare-${(n += 1)}.sqlite`)),
    destroyCheckpointer: (saver) => {
      saver.db.close();
    },
  },
  SQLITE_KNOWN_FAILURES,
);
