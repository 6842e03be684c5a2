// chain.* operations: each a call into core/chain (stores, ledger pages,
// verdicts) on the ledger scope of a handle.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChainStores, type LedgerScope } from '../chain/chain-stores';
import { ledgerEvents, ledgerRows } from '../chain/ledger-pages';
import { listWorkflowEntries, verifyWorkflows } from '../chain/verify-report';
import { GfError } from '../errors';
import { userCursorKey } from '../paging/cursor-key';
import { LAYOUT } from '../project/layout';
import { readLineage } from '../project/index';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';
import { requireAbsolute } from './absolute-path';

export { ChainStores, chainBackendOf, type ChainBackend, type LedgerScope } from '../chain/chain-stores';

/**
 * The ledger scope of a handle: a project's (`project.open`) or a ledger
 * directory's (`chain.open`); an unknown handle is `GF_VALIDATION`.
 */
function scopes(projects: SessionTable<ProjectSession>, ledgers: SessionTable<LedgerScope>): (handle: string) => LedgerScope {
  return (handle) => {
    try {
      const s = projects.get(handle);
      return { root: s.project.root, closers: s.closers, lineage: () => s.project.lineage().records };
    } catch (e) {
      if (e instanceof GfError && e.code === 'GF_VALIDATION') return ledgers.get(handle);
      throw e;
    }
  };
}

/** chain.open / list / read / rows / verify / health implementations. */
export function chainOperations(projects: SessionTable<ProjectSession>, stores: ChainStores, ledgers: SessionTable<LedgerScope>) {
  const scopeOf = scopes(projects, ledgers);
  const ops = {
    'chain.open': async ({ path }) => {
      requireAbsolute(path, { sentence: 'the directory must be an absolute path', field: 'path' });
      if (!existsSync(path)) throw new GfError('GF_IO', 'project directory not found', {}, false);
      const closers = new Set<() => Promise<void> | void>();
      // A workspace directory (its FORMAT file) has a lineage log; any other directory's ledgers link to no generation.
      const workspace = existsSync(join(path, LAYOUT.format));
      const project = ledgers.add({
        value: { root: path, closers, lineage: () => (workspace ? readLineage(path).records : null) },
        close: async () => {
          for (const c of [...closers]) await c();
          closers.clear();
        },
      });
      return { project };
    },
    'chain.rows': async ({ project, workflow_id, limit, after }) => {
      const scope = scopeOf(project);
      return ledgerRows(await stores.storeOf(scope), scope.lineage(), workflow_id, { limit, after, key: () => userCursorKey() });
    },
    'chain.list': async ({ project }) => listWorkflowEntries(await stores.storeOf(scopeOf(project))),
    'chain.read': async ({ project, workflow_id, limit, after }) => {
      const scope = scopeOf(project);
      return ledgerEvents(await stores.storeOf(scope), scope.lineage(), workflow_id, { limit, after, key: () => userCursorKey() });
    },
    'chain.verify': async ({ project, workflow_id, expect_head }) => verifyWorkflows(await stores.storeOf(scopeOf(project)), workflow_id, expect_head),
    'chain.health': async ({ project }) => {
      const store = await stores.storeOf(scopeOf(project));
      const workflows = (await store.listWorkflows()).length;
      if (stores.kind === 'postgres') return { backend: 'postgres', workflows, details: await stores.postgresHealth() };
      return { backend: 'sqlite', workflows, details: {} };
    },
  } satisfies PartialImplementations;
  // Every chain call names an unreachable database server in plain words (never `GF_IO`, never the credentials).
  const guarded = Object.fromEntries(
    Object.entries(ops).map(([name, impl]) => [
      name,
      async (request: never) => {
        try {
          return await (impl as (r: never) => Promise<unknown>)(request);
        } catch (e) {
          throw stores.explain(e);
        }
      },
    ]),
  );
  return guarded as typeof ops;
}
