import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { ERROR_CODES, fromWireError } from '../../../../core/contract/errors';
import { decodeHttpResponse, unwrapEnvelope, type Envelope } from '../../../../core/contract/wire';
import { armIoFaultForTesting } from '../../../../core/project/fs-layer';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { actionFor, showError } from '../../../../renderer/errors-text';
import { buildApiWorkspace } from '../../../support/api-workspace';
import { putConfig } from '../../../support/project-fixtures';

// One error model (issue 19): the wire code is a GF_* code or a chain error
// id, with details kept, on every path to the UI; each cause has its own
// plain-language message; no cause that is not an I/O error is shown as GF_IO.

let tmp: string;
let ws: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-errors-'));
  ws = path.join(tmp, 'ws');
  await buildApiWorkspace(ws);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What the UI shows for an envelope that crossed the HTTP bridge as JSON (the bridge's encoding, the renderer's decoder). */
async function shownThroughHttp(env: Envelope, status = env.ok ? 200 : 400): Promise<ReturnType<typeof showError>> {
  const body = new TextEncoder().encode(JSON.stringify(env));
  const decoded = await decodeHttpResponse({ status, headers: { get: (h) => (h === 'content-type' ? 'application/json' : null) }, arrayBuffer: async () => body.slice().buffer });
  try {
    unwrapEnvelope(decoded);
    return { code: 'ok', message: '', action: '' };
  } catch (e) {
    return showError(e);
  }
}

/** A TCP port on the loopback interface that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('one error model: every cause its own code and sentence, never GF_IO unless a file failed', () => {
  it('a missing folder, an empty folder and a file are GF_NO_WORKSPACE (not an unsupported format)', async () => {
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    const file = path.join(tmp, 'file.txt');
    fs.writeFileSync(file, 'x');
    const facade = createFacade({ mode: 'library' });
    try {
      for (const target of [path.join(tmp, 'missing'), empty, file]) {
        const shown = await shownThroughHttp(await facade.dispatcher.dispatch('project.open', { path: target }));
        expect({ target, ...shown }).toEqual({ target, code: 'GF_NO_WORKSPACE', message: 'No workspace at this location (no FORMAT file)', action: 'Choose a folder that holds a workspace (gf demo create DIR makes a demo one).' });
      }
    } finally {
      await facade.close();
    }
  });

  it('an unreachable PostgreSQL store: "PostgreSQL at HOST:PORT refused the connection", no credentials anywhere', async () => {
    const port = await closedPort();
    const url = `postgres://alice:s3cret-pw@127.0.0.1:${port}/ledgers`;
    const facade = createFacade({ mode: 'library', chain: { kind: 'postgres', url } });
    try {
      const { project } = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: ws })) as { project: string };
      const env = await facade.dispatcher.dispatch('chain.list', { project });
      expect(env.ok ? 'ok' : [env.error.code, env.error.details['host'], env.error.details['port'], env.error.details['errno']]).toEqual(['GF_STORE_UNREACHABLE', '127.0.0.1', port, 'ECONNREFUSED']);
      expect(JSON.stringify(env)).not.toMatch(/alice|s3cret|ledgers/);
      const shown = await shownThroughHttp(env);
      expect(shown).toMatchObject({ code: 'GF_STORE_UNREACHABLE', message: `PostgreSQL at 127.0.0.1:${port} refused the connection` });
    } finally {
      await facade.close();
    }
  });

  it('a ledger failure reaches the UI as its chain error id with its details, not as GF_IO', async () => {
    const facade = createFacade({ mode: 'library' });
    try {
      const { project } = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: ws })) as { project: string };
      // A ledger that ends at another head than the one recorded elsewhere (a truncated chain).
      const env = await facade.dispatcher.dispatch('chain.verify', { project, workflow_id: 'demo-clean-completion', expect_head: `blake3:${'0'.repeat(64)}` });
      const shown = await shownThroughHttp(env);
      expect(shown.code).toBe('workflows.checkpoint_head_unexpected');
      const rebuilt = env.ok ? null : fromWireError(env.error);
      expect(rebuilt?.code).toBe(shown.code);
      expect(rebuilt?.details).toEqual(env.ok ? null : env.error.details);
    } finally {
      await facade.close();
    }
  });

  it('transport failures: a stopped server, a refused session and an unknown code each have their own code', async () => {
    expect(showError(new TypeError('Failed to fetch'))).toMatchObject({ code: 'GF_SERVER_UNREACHABLE', message: 'Lost connection to the Checkpoint Studio server' });
    const refused = await decodeHttpResponse({ status: 401, headers: { get: () => 'text/plain' }, arrayBuffer: async () => new ArrayBuffer(0) });
    expect(refused.ok ? 'ok' : [refused.error.code, refused.error.message]).toEqual(['GF_SESSION_EXPIRED', 'GF_SESSION_EXPIRED: open the link printed at start (by npm start or gf serve)']);
    const newer = fromWireError({ code: 'GF_FROM_THE_FUTURE', committed: null, message: 'x', details: { a: 1 } });
    expect([newer.code, newer.details]).toEqual(['GF_PROTOCOL', { a: 1, wire_code: 'GF_FROM_THE_FUTURE' }]);
    expect(showError(new Error('boom at /home/alice'))).toEqual({ code: 'GF_INTERNAL', message: 'unexpected failure', action: 'This is a defect in Checkpoint Studio. Retry; if it persists, report it.' });
    expect(showError('a string')).toMatchObject({ code: 'GF_INTERNAL' });
  });

  it('every code an operation can fail with has its own next step, and the UI shows it for that code', () => {
    const actions = ERROR_CODES.map((code) => actionFor(code));
    for (const [i, action] of actions.entries()) expect(action, ERROR_CODES[i]).toMatch(/^[A-Z][^]*\.$/);
    expect(new Set(actions).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) {
      const shown = showError(fromWireError({ code, committed: false, message: `${code}: what happened`, details: {} }));
      expect([shown.code, shown.message, shown.action]).toEqual([code, 'what happened', actionFor(code)]);
    }
  });

  it('a real I/O failure is still GF_IO (a full disk during a publication), so the code keeps its meaning', async () => {
    const dir = path.join(tmp, 'io');
    fs.cpSync(ws, dir, { recursive: true });
    const p = await openProject<Table>(dir, { catalog: registryCatalog });
    armIoFaultForTesting('1:ENOSPC:write');
    let code: unknown;
    try {
      await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig('full')] });
    } catch (e) {
      code = (e as { code?: unknown }).code;
    } finally {
      armIoFaultForTesting(undefined);
    }
    expect(code).toBe('GF_IO');
  });
});
