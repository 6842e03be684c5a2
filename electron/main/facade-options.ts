// What Electron main hands the facade, importable without the Electron binary
// (main and the Electron-shaped e2e pass build the same facade from it).
import type { FacadeOptions, FolderDialog } from '../../core/api/facade';
import { resolveChainPostgresTarget } from '../../core/chain/postgres/postgres-config';
import { LANGGRAPH_POSTGRES_URL_ENV } from '../../core/contract/threads';
import { appConfigDir } from '../../core/actor/actor-store';

/**
 * The desktop app's facade: mode `electron`; the chain ledgers in the shared
 * PostgreSQL store when the environment names one, else per-project SQLite;
 * Agent threads' LangGraph Postgres URL from the environment. Both are kept in
 * memory by the facade only. The app user's identity lives in the app's
 * configuration folder (`GF_CONFIG_DIR`, else the platform's), as for the CLI.
 * `chooseFolder` is the window's folder dialog (electron/main/folder-dialog.ts).
 */
export function mainFacadeOptions(env: Readonly<Record<string, string | undefined>>, chooseFolder: FolderDialog): FacadeOptions {
  const pg = resolveChainPostgresTarget({ env });
  const langgraph = env[LANGGRAPH_POSTGRES_URL_ENV];
  return {
    mode: 'electron',
    configDir: appConfigDir(env),
    chooseFolder,
    chain: pg === null ? { kind: 'sqlite' } : { kind: 'postgres', url: pg.url },
    ...(langgraph === undefined || langgraph === '' ? {} : { langgraphPostgresUrl: langgraph }),
  };
}
