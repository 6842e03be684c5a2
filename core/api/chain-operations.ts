// chain.* operations over the project's SQLite chain store (core/chain).
import { join } from 'node:path';
import { SqliteCheckpointStore } from '../chain/sqlite/sqlite-store';
import { verify } from '../chain/verify';
import { ChainError } from '../chain/errors';
import { GfError } from '../errors';
import type { ChainEvent, VerifyEntry } from './contract';
import type { Implementations } from './dispatcher';
import type { ProjectSession } from './project-operations';
import type { SessionTable } from './sessions';

const stores = new WeakMap<ProjectSession, SqliteCheckpointStore>();

/** The project's chain store (`<project>/chain`), opened once per session and closed with it. */
function storeOf(session: ProjectSession): SqliteCheckpointStore {
  let s = stores.get(session);
  if (s === undefined) {
    const store = new SqliteCheckpointStore(join(session.project.root, 'chain'));
    stores.set(session, store);
    session.closers.add(() => store.close());
    s = store;
  }
  return s;
}

function decodeAfter(after: string | null | undefined): number {
  if (after === undefined || after === null) return 0;
  const m = /^s(\d{1,9})$/.exec(after);
  if (m === null) throw new GfError('GF_PAGE_INVALID', 'the page token is not valid for chain.read', { method: 'chain.read' });
  return Number(m[1]);
}

/** Refuses a workflow with no persisted row (as `gf chain show|verify` do). */
async function requireRows(store: SqliteCheckpointStore, workflowId: string): Promise<void> {
  for await (const _row of store.readPersistedRows(workflowId)) return;
  throw new ChainError('workflows.workflow_not_found', 'no chain for this workflow in the project');
}

async function verifyOne(store: SqliteCheckpointStore, workflowId: string): Promise<VerifyEntry> {
  const r = await verify(store, workflowId);
  return { workflow_id: workflowId, status: r.status, first_bad_sequence: r.first_bad_sequence ?? null, rows: r.rows, tail_head: r.tail_head };
}

/** chain.list / chain.read / chain.verify / chain.health implementations. */
export function chainOperations(projects: SessionTable<ProjectSession>): Implementations {
  return {
    'chain.list': async ({ project }) => {
      const store = storeOf(projects.get(project));
      const workflows = [];
      for (const id of await store.listWorkflows()) {
        const r = await verify(store, id);
        workflows.push({ workflow_id: id, rows: r.rows, tail_head: r.tail_head });
      }
      return { workflows };
    },
    'chain.read': async ({ project, workflow_id, limit, after }) => {
      const store = storeOf(projects.get(project));
      const skip = decodeAfter(after);
      await requireRows(store, workflow_id);
      const max = limit ?? 100;
      const events: ChainEvent[] = [];
      let sequence = 0;
      let more = false;
      for await (const e of store.readAllForWorkflow(workflow_id)) {
        sequence++;
        if (sequence <= skip) continue;
        if (events.length === max) {
          more = true;
          break;
        }
        events.push({ sequence, ...e });
      }
      return { events, next_page_token: more ? `s${skip + events.length}` : null };
    },
    'chain.verify': async ({ project, workflow_id, expect_head }) => {
      const store = storeOf(projects.get(project));
      if (workflow_id === undefined) {
        if (expect_head !== undefined) throw new GfError('GF_VALIDATION', 'expect_head needs one workflow_id', { field: 'expect_head' });
        const results: VerifyEntry[] = [];
        for (const id of await store.listWorkflows()) results.push(await verifyOne(store, id));
        return { results };
      }
      await requireRows(store, workflow_id);
      const one = await verifyOne(store, workflow_id);
      // A tail other than the head recorded elsewhere exposes a truncated chain (the CLI's --expect-head).
      if (one.status === 'ok' && expect_head !== undefined && one.tail_head !== expect_head) {
        throw new ChainError('workflows.checkpoint_head_unexpected', 'the tail head differs from the expected head');
      }
      return { results: [one] };
    },
    'chain.health': async ({ project }) => {
      const store = storeOf(projects.get(project));
      return { backend: 'sqlite', workflows: (await store.listWorkflows()).length, details: {} };
    },
  };
}
