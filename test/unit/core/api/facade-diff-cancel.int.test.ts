// A running diff is cancelled from another request through a real facade:
// the cancel is sent from inside the diff's own progress (its first pause),
// never by sleeping; the uncancelled diff returns exactly the synchronous core's rows.
import diagnostics from 'node:diagnostics_channel';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { CHANGE_CACHE_DIR } from '../../../../core/diff/changes-cache';
import { DIFF_PROGRESS_CHANNEL } from '../../../../core/diff/steps';
import { checkpointsResolver } from '../../../../core/diff/shell';
import { diffEndpoints } from '../../../../core/diff/page-diff';
import { loadTokenSecret } from '../../../../core/diff/token-secret';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { benchNodes, nodeParticipantBytes } from '../../../../bench/diff-data';
import { testUuid } from '../../../support/project-fixtures';

const RECORDS = 150_000;
/** 1% modified, 0.5% added, 0.5% removed (see bench/diff-data). */
const CHANGES = RECORDS / 100 + RECORDS / 100;

let root: string;
let dir: string;
let facade: Facade;
let project: string;

const call = (op: string, req: object): Promise<Envelope> => facade.dispatcher.dispatch(op, req);
function value<T>(env: Envelope): T {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}

function rowsOf(t: Table): string[] {
  return t.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
}

function changeCacheEntries(): number {
  const d = join(dir, ...CHANGE_CACHE_DIR);
  return existsSync(d) ? readdirSync(d, { recursive: true }).length : 0;
}

/** Subscribes to the diff's pause points for the duration of `body`. */
async function withPauses<T>(onPause: (phase: string) => void, body: () => Promise<T>): Promise<T> {
  const listener = (msg: unknown): void => onPause((msg as { phase: string }).phase);
  diagnostics.subscribe(DIFF_PROGRESS_CHANNEL, listener);
  try {
    return await body();
  } finally {
    diagnostics.unsubscribe(DIFF_PROGRESS_CHANNEL, listener);
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-diff-cancel-'));
  dir = join(root, 'ws');
  await createProject(dir, { catalog: registryCatalog });
  const p = await openCheckpointedProject(dir);
  const cps = new Checkpoints(p, { clock: () => 1_767_225_600_000_000 });
  const nodes = benchNodes(RECORDS);
  const put = (bytes: Uint8Array) => ({ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes }) as const;
  const g1 = await p.publish({ parent: null, changes: [put(nodeParticipantBytes(nodes.from))] });
  await cps.checkpoint({ name: 'from', idempotencyKey: testUuid('cancel-from') });
  await p.publish({ parent: g1.generationUuid, changes: [put(nodeParticipantBytes(nodes.to))] });
  await cps.checkpoint({ name: 'to', idempotencyKey: testUuid('cancel-to') });
  facade = createFacade({ mode: 'library' });
  project = value<{ project: string }>(await call('project.open', { path: dir })).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('checkpoints.diff cancellation while it runs', () => {
  const req = { from: 'from', to: 'to', scope: 'graph', detail: 'records', limit: 10_000 } as const;

  it('operation.cancel stops a running record diff: GF_CANCELLED, no result, nothing cached', async () => {
    const op = testUuid('running-diff');
    let cancel: Promise<Envelope> | undefined;
    let pausesAfterCancel = 0;
    const result = await withPauses(
      () => {
        if (cancel !== undefined) pausesAfterCancel++;
        else cancel = call('operation.cancel', { operation_id: op });
      },
      () => call('checkpoints.diff', { project, ...req, operation_id: op }),
    );
    expect(cancel).toBeDefined();
    // The cancel found the diff running (not queued for a later start) ...
    expect(value<{ cancelled: boolean }>(await (cancel as Promise<Envelope>)).cancelled).toBe(true);
    // ... and the diff stopped at one of its next pause points, with no rows.
    expect(result.ok).toBe(false);
    expect(result.ok ? 'ok' : result.error.code).toBe('GF_CANCELLED');
    expect(pausesAfterCancel).toBeLessThanOrEqual(2);
    expect(changeCacheEntries()).toBe(0);
  });

  it('an uncancelled diff yields while it runs and returns exactly the synchronous core rows', async () => {
    let pauses = 0;
    const env = await withPauses(
      () => pauses++,
      () => call('checkpoints.diff', { project, ...req, operation_id: testUuid('uncancelled') }),
    );
    const got = tableFromIPC(value<ArrowResult>(env).bytes);
    expect(got.numRows).toBe(CHANGES);
    expect(pauses).toBeGreaterThanOrEqual(Math.floor((2 * RECORDS) / 4096));

    // The same request through the synchronous pure core over the same pinned views.
    const cps = new Checkpoints(await openCheckpointedProject(dir));
    const resolver = checkpointsResolver(cps);
    const a = resolver.open({ name: 'from' });
    const b = resolver.open({ name: 'to' });
    try {
      const binding = { selectorsSha256: selectorsDigest({ name: 'from' }, { name: 'to' }) };
      const sync = diffEndpoints(a, b, resolveDiffParams(req), binding, { secret: loadTokenSecret(dir) });
      expect(rowsOf(got)).toEqual(rowsOf(sync.table));
      // First page with a token: identical rows and an identical next-page token.
      const small = { ...req, limit: 100 };
      const page = value<ArrowResult>(await call('checkpoints.diff', { project, ...small }));
      const syncPage = diffEndpoints(a, b, resolveDiffParams(small), binding, { secret: loadTokenSecret(dir) });
      expect(rowsOf(tableFromIPC(page.bytes))).toEqual(rowsOf(syncPage.table));
      expect(page.next_page_token).toBe(syncPage.nextPageToken);
    } finally {
      a.release();
      b.release();
    }
  });
});
