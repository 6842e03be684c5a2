// chain.* operations over the project's SQLite chain store (core/chain).
import { join } from 'node:path';
import { SqliteCheckpointStore } from '../chain/sqlite/sqlite-store';
import { verify } from '../chain/verify';
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

async function verifyOne(store: SqliteCheckpointStore, workflowId: string, expectHead: string | undefined): Promise<VerifyEntry> {
  const r = await verify(store, workflowId);
  const headMismatch = r.status === 'ok' && expectHead !== undefined && r.tail_head !== expectHead;
  return {
    workflow_id: workflowId,
    status: headMismatch ? 'head_mismatch' : r.status,
    first_bad_sequence: r.first_bad_sequence ?? null,
    rows: r.rows,
    tail_head: r.tail_head,
  };
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
      const ids = workflow_id === undefined ? await store.listWorkflows() : [workflow_id];
      const results: VerifyEntry[] = [];
      for (const id of ids) results.push(await verifyOne(store, id, expect_head));
      return { results };
    },
    'chain.health': async ({ project }) => {
      const store = storeOf(projects.get(project));
      return { backend: 'sqlite', workflows: (await store.listWorkflows()).length, details: {} };
    },
  };
}
