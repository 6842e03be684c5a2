import { request as httpRequest } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { createDispatcher } from '../../../../core/api/dispatcher';
import { GfError } from '../../../../core/errors';
import { DEFAULT_MAX_BODY_BYTES, startBridge, type Bridge } from '../../../../core/api/http-bridge';
import { CONTENT_SECURITY_POLICY } from '../../../../core/api/security';
import { decodeHttpResponse } from '../../../../core/contract/wire';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

function call(b: Bridge, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: b.port, path, method: opts.method ?? 'POST', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const json = (b: Bridge, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${b.token}`,
  'content-type': 'application/json',
  host: `127.0.0.1:${b.port}`,
  ...extra,
});

/** Exchanges the printed URL's token for the session cookie, as a browser opening it does; returns the `Cookie` header. */
async function signIn(b: Bridge): Promise<string> {
  const r = await call(b, `/?token=${b.token}`, { method: 'GET', headers: { host: `127.0.0.1:${b.port}` } });
  expect(r.status).toBe(303);
  const set = r.headers['set-cookie']?.[0] ?? '';
  return set.split(';')[0] ?? '';
}

/** Headers of a page request from a signed-in browser. */
const page = (b: Bridge, cookie: string, extra: Record<string, string> = {}) => ({ host: `127.0.0.1:${b.port}`, cookie, ...extra });

let bridge: Bridge;
let cookie: string;
let rendererDir: string;
const facade = createFacade({ mode: 'browser' });

beforeAll(async () => {
  rendererDir = mkdtempSync(join(tmpdir(), 'gf-bridge-'));
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'export {};');
  writeFileSync(join(tmpdir(), 'gf-bridge-outside.txt'), 'outside');
  bridge = await startBridge({ dispatcher: facade.dispatcher, rendererDir });
  cookie = await signIn(bridge);
});

afterAll(async () => {
  await bridge.close();
  rmSync(rendererDir, { recursive: true, force: true });
});

describe('http bridge', () => {
  it('binds 127.0.0.1 only and prints a URL whose token the bridge exchanges for a cookie', async () => {
    expect(bridge.address).toBe('127.0.0.1');
    expect(bridge.url).toBe(`http://127.0.0.1:${bridge.port}/?token=${bridge.token}`);
    expect(bridge.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
    if (external !== undefined) {
      const outcome = await new Promise<string>((resolve) => {
        const s = connect({ host: external.address, port: bridge.port });
        s.once('connect', () => {
          s.destroy();
          resolve('connected');
        });
        s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(outcome).toBe('ECONNREFUSED');
    }
  });

  it('runs an operation with the token and the right Host', async () => {
    const r = await call(bridge, '/api/app.session', { headers: json(bridge), body: '{}' });
    expect(r.status).toBe(200);
    const env = JSON.parse(r.body.toString());
    expect(env.ok).toBe(true);
    expect(env.value.mode).toBe('browser');
    expect(env.value.operations).toContain('app.session');
  });

  it('refuses a call without the token, or with a wrong one, with 401', async () => {
    const { authorization: _a, ...noAuth } = json(bridge);
    expect((await call(bridge, '/api/app.session', { headers: noAuth, body: '{}' })).status).toBe(401);
    expect((await call(bridge, '/api/app.session', { headers: json(bridge, { authorization: `Bearer ${bridge.token.slice(1)}x` }), body: '{}' })).status).toBe(401);
    expect((await call(bridge, '/api/app.session', { headers: json(bridge, { authorization: bridge.token }), body: '{}' })).status).toBe(401);
  });

  it('refuses a foreign Host header with 403 (DNS rebinding), on the API and on static files', async () => {
    for (const host of ['evil.example:80', `evil.example:${bridge.port}`, `127.0.0.1:${bridge.port + 1}`, '127.0.0.1']) {
      expect((await call(bridge, '/api/app.session', { headers: json(bridge, { host }), body: '{}' })).status, host).toBe(403);
      expect((await call(bridge, '/', { method: 'GET', headers: { host } })).status, host).toBe(403);
    }
    expect((await call(bridge, '/api/app.session', { headers: json(bridge, { host: `localhost:${bridge.port}` }), body: '{}' })).status).toBe(200);
    // HTTP/1.0 without any Host header.
    const raw = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: bridge.port }, () => s.end('GET / HTTP/1.0\r\n\r\n'));
      let out = '';
      s.on('data', (c: Buffer) => (out += c.toString()));
      s.on('close', () => resolve(out));
    });
    expect(raw.split('\r\n')[0]).toMatch(/^HTTP\/1\.[01] 403/);
  });

  it('refuses a cross-site Origin with 403 and never sends Access-Control-Allow-Origin', async () => {
    const cross = await call(bridge, '/api/app.session', { headers: json(bridge, { origin: 'http://evil.example' }), body: '{}' });
    expect(cross.status).toBe(403);
    const preflight = await call(bridge, '/api/app.session', {
      method: 'OPTIONS',
      headers: { host: `127.0.0.1:${bridge.port}`, origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    const ok = await call(bridge, '/api/app.session', { headers: json(bridge, { origin: bridge.origin }), body: '{}' });
    expect(ok.status).toBe(200);
    for (const r of [cross, preflight, ok]) {
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('refuses an oversized body with 413 before parsing it', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) });
    const r = await call(bridge, '/api/app.session', { headers: json(bridge), body: big });
    expect(r.status).toBe(413);
  });

  it('refuses non-JSON content types (no simple cross-site form posts), wrong methods and bad JSON', async () => {
    expect((await call(bridge, '/api/app.session', { headers: json(bridge, { 'content-type': 'text/plain' }), body: '{}' })).status).toBe(415);
    expect((await call(bridge, '/api/app.session', { method: 'GET', headers: json(bridge) })).status).toBe(405);
    const bad = await call(bridge, '/api/app.session', { headers: json(bridge), body: '{"a":' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString()).error.code).toBe('GF_VALIDATION');
  });

  it('validates payloads like IPC does: extra keys, __proto__ and unknown operations are GF_VALIDATION', async () => {
    for (const [path, body] of [
      ['/api/app.session', '{"extra":1}'],
      ['/api/app.session', '{"__proto__":{"x":1}}'],
      ['/api/project.open', '{"path":42}'],
      ['/api/no.such', '{}'],
      ['/api/__proto__', '{}'],
    ] as const) {
      const r = await call(bridge, path, { headers: json(bridge), body });
      expect(r.status, path + body).toBe(422);
      expect(JSON.parse(r.body.toString()).error.code).toBe('GF_VALIDATION');
    }
  });

  it('serves the renderer with the strict CSP and refuses traversal', async () => {
    const index = await call(bridge, '/', { method: 'GET', headers: page(bridge, cookie) });
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.body.toString()).toContain('<title>t</title>');
    const js = await call(bridge, '/assets/app.js', { method: 'GET', headers: page(bridge, cookie) });
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    for (const p of ['/../gf-bridge-outside.txt', '/%2e%2e/gf-bridge-outside.txt', '/assets/..%2f..%2fgf-bridge-outside.txt', '/assets', '/%00']) {
      const r = await call(bridge, p, { method: 'GET', headers: page(bridge, cookie) });
      expect([400, 404], p).toContain(r.status);
      expect(r.body.toString()).not.toContain('outside');
    }
  });

  it('defect 7 (issue 23): a symlinked directory inside the renderer directory never serves a file outside it', async () => {
    const outsideDir = mkdtempSync(join(tmpdir(), 'gf-bridge-secret-'));
    writeFileSync(join(outsideDir, 'passwd.txt'), 'root:x:0:0');
    symlinkSync(outsideDir, join(rendererDir, 'linked'));
    symlinkSync(join(tmpdir(), 'gf-bridge-outside.txt'), join(rendererDir, 'assets', 'escape.js'));
    for (const p of ['/linked/passwd.txt', '/assets/escape.js']) {
      const r = await call(bridge, p, { method: 'GET', headers: page(bridge, cookie) });
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      expect(r.body.toString()).not.toMatch(/root:x|outside/);
    }
  });
});

describe('http bridge browser session (the printed URL exchanged once for a cookie)', () => {
  it('the token becomes an HttpOnly, SameSite=Strict, host-only cookie and a redirect to the clean URL; the token is never echoed', async () => {
    const r = await call(bridge, `/?token=${bridge.token}`, { method: 'GET', headers: { host: `127.0.0.1:${bridge.port}` } });
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe('/');
    const set = r.headers['set-cookie'] ?? [];
    expect(set).toHaveLength(1);
    const attrs = (set[0] ?? '').split(';').map((a) => a.trim());
    const [pair, ...rest] = attrs;
    expect(pair?.startsWith(`${bridge.cookieName}=`)).toBe(true);
    expect(bridge.cookieName).toBe(`gf_session_${bridge.port}`);
    expect(rest.sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict']);
    // No Domain attribute: the cookie stays with the loopback host that set it.
    expect(attrs.some((a) => /^domain=/i.test(a))).toBe(false);
    // The session id is not the token; nothing sent back carries the token.
    expect(pair?.slice(bridge.cookieName.length + 1)).not.toBe(bridge.token);
    expect(JSON.stringify(r.headers) + r.body.toString()).not.toContain(bridge.token);
  });

  it('with the cookie: reload, bookmark and a second tab get the page and the API (same Origin); a deep link keeps its path', async () => {
    for (let i = 0; i < 2; i++) expect((await call(bridge, '/', { method: 'GET', headers: page(bridge, cookie) })).status).toBe(200);
    const deep = await call(bridge, `/index.html?token=${bridge.token}`, { method: 'GET', headers: { host: `127.0.0.1:${bridge.port}` } });
    expect(deep.headers['location']).toBe('/index.html');
    const api = await call(bridge, '/api/app.session', { headers: { 'content-type': 'application/json', ...page(bridge, cookie, { origin: bridge.origin }) }, body: '{}' });
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body.toString()).value.mode).toBe('browser');
  });

  it('refuses requests with neither cookie nor token: the page says the link expired, the API answers 401', async () => {
    const pageR = await call(bridge, '/', { method: 'GET', headers: { host: `127.0.0.1:${bridge.port}` } });
    expect(pageR.status).toBe(401);
    // No token and no session: nothing expired; the page says to open the link printed at start.
    expect(pageR.body.toString()).toContain('Open the link printed at start: this address has no sign-in token.');
    expect(pageR.body.toString()).not.toContain('expired');
    expect((await call(bridge, '/assets/app.js', { method: 'GET', headers: { host: `127.0.0.1:${bridge.port}` } })).status).toBe(401);
    const api = await call(bridge, '/api/app.session', { headers: { 'content-type': 'application/json', host: `127.0.0.1:${bridge.port}`, origin: bridge.origin }, body: '{}' });
    expect(api.status).toBe(401);
    const env = JSON.parse(api.body.toString());
    expect(env.error.code).toBe('GF_SESSION_EXPIRED');
    expect(env.error.message).toBe('GF_SESSION_EXPIRED: open the link printed at start: this page has no sign-in token');
    // A made-up session id is no session.
    const forged = await call(bridge, '/', { method: 'GET', headers: page(bridge, `${bridge.cookieName}=${'A'.repeat(43)}`) });
    expect(forged.status).toBe(401);
  });

  it('the cookie rides only its own Origin: a foreign or missing Origin with the cookie is refused, a foreign Host too', async () => {
    const body = '{}';
    const h = (extra: Record<string, string>) => ({ 'content-type': 'application/json', ...page(bridge, cookie, extra) });
    expect((await call(bridge, '/api/app.session', { headers: h({ origin: 'http://evil.example' }), body })).status).toBe(403);
    expect((await call(bridge, '/api/app.session', { headers: h({}), body })).status).toBe(401);
    expect((await call(bridge, '/api/app.session', { headers: h({ origin: bridge.origin, host: 'evil.example' }), body })).status).toBe(403);
    expect((await call(bridge, '/', { method: 'GET', headers: page(bridge, cookie, { host: 'evil.example' }) })).status).toBe(403);
  });

  it('a stale link (a token of another run) says it expired and echoes nothing; a session ends when its server stops', async () => {
    const old = await startBridge({ dispatcher: createDispatcher({}), rendererDir });
    const oldCookie = await signIn(old);
    const port = old.port;
    const oldToken = old.token;
    await old.close();
    const next = await startBridge({ dispatcher: createDispatcher({}), rendererDir, port });
    try {
      const stale = await call(next, `/?token=${oldToken}`, { method: 'GET', headers: { host: `127.0.0.1:${port}` } });
      expect(stale.status).toBe(403);
      expect(stale.body.toString()).toContain('This link has expired');
      expect(stale.headers['set-cookie']).toBeUndefined();
      expect(JSON.stringify(stale.headers) + stale.body.toString()).not.toContain(oldToken);
      const restarted = await call(next, '/', { method: 'GET', headers: page(next, oldCookie) });
      expect(restarted.status).toBe(401);
      // A session cookie of the stopped server: that one did expire.
      expect(restarted.body.toString()).toContain('This link has expired; open the link printed at start.');
      expect((await call(next, '/', { method: 'GET', headers: page(next, await signIn(next)) })).status).toBe(200);
    } finally {
      await next.close();
    }
  });
});

describe('http bridge arrow transport', () => {
  it('sends Arrow results as raw IPC stream bytes with the next-page token header, decoded back identically', async () => {
    const table = tableFromArrays({ name: ['a', 'b'], n: Int32Array.from([1, 2]) });
    const bytes = tableToIPC(table, 'stream');
    const d = createDispatcher({ 'checkpoints.list': async () => ({ kind: 'arrow' as const, bytes, next_page_token: 'tok.1' }) });
    const b = await startBridge({ dispatcher: d });
    try {
      const res = await fetch(`${b.origin}/api/checkpoints.list`, {
        method: 'POST',
        headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project: '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b' }),
      });
      const env = await decodeHttpResponse<'checkpoints.list'>(res);
      expect(env.ok).toBe(true);
      if (env.ok) {
        expect(Buffer.from(env.value.bytes).equals(Buffer.from(bytes))).toBe(true);
        expect(env.value.next_page_token).toBe('tok.1');
        expect(tableFromIPC(env.value.bytes).getChild('name')?.toArray()).toEqual(['a', 'b']);
      }
    } finally {
      await b.close();
    }
  });
});

describe('http bridge build assets', () => {
  it('serves hashed assets from memory once read at start (a page never waits on the disk for its app chunk); other files from disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-bridge-assets-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>v1</title>');
    writeFileSync(join(dir, 'assets', 'mount-abc123.js'), 'export const v = 1;');
    const b = await startBridge({ dispatcher: createDispatcher({}), rendererDir: dir });
    try {
      const c = await signIn(b);
      rmSync(join(dir, 'assets', 'mount-abc123.js'));
      rmSync(join(dir, 'index.html'));
      const js = await call(b, '/assets/mount-abc123.js', { method: 'GET', headers: page(b, c) });
      expect(js.status).toBe(200);
      expect(js.body.toString()).toBe('export const v = 1;');
      expect(js.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect((await call(b, '/', { method: 'GET', headers: page(b, c) })).status).toBe(404);
      expect((await call(b, '/assets/other.js', { method: 'GET', headers: page(b, c) })).status).toBe(404);
    } finally {
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('http bridge cancellation', () => {
  it('cancels a running operation by its operation_id when the client goes away before the answer; a finished call cancels nothing', async () => {
    const cancels: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let ended!: (code: string) => void;
    const outcome = new Promise<string>((r) => (ended = r));
    const cancelled = new Set<string>();
    let wake: (() => void) | null = null;
    const d = createDispatcher({
      'checkpoints.diff': async ({ operation_id }) => {
        if (operation_id === 'ffffffff-0000-4000-8000-000000000001') {
          started();
          while (!cancelled.has(operation_id)) await new Promise<void>((r) => (wake = r));
          ended('GF_CANCELLED');
          throw new GfError('GF_CANCELLED', 'cancelled', {});
        }
        return { kind: 'arrow' as const, bytes: tableToIPC(tableFromArrays({ n: Int32Array.from([1]) }), 'stream'), next_page_token: null };
      },
      'operation.cancel': async ({ operation_id }) => {
        cancels.push(operation_id);
        cancelled.add(operation_id);
        wake?.();
        return { cancelled: true };
      },
    });
    const b = await startBridge({ dispatcher: d });
    const diff = (id: string) => JSON.stringify({ project: '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b', from: 'a', to: 'CURRENT', scope: 'all', detail: 'records', operation_id: id });
    try {
      // Finished normally: no cancel is sent for it.
      const done = await call(b, '/api/checkpoints.diff', { headers: json(b), body: diff('ffffffff-0000-4000-8000-000000000002') });
      expect(done.status).toBe(200);
      // Aborted by the client while the engine runs: the bridge cancels that operation id.
      const req = httpRequest({ host: '127.0.0.1', port: b.port, path: '/api/checkpoints.diff', method: 'POST', headers: json(b) });
      req.on('error', () => undefined);
      req.end(diff('ffffffff-0000-4000-8000-000000000001'));
      await running;
      req.destroy();
      expect(await outcome).toBe('GF_CANCELLED');
      expect(cancels).toEqual(['ffffffff-0000-4000-8000-000000000001']);
    } finally {
      await b.close();
    }
  });
});
