import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { startBridge, type Bridge } from '../../../../core/api/http-bridge';
import { createDemoWorkspace } from '../../../../core/demo/index';

// One request never holds up the bridge's other clients: while one client
// sends a huge ontology and another names a FIFO as a LangGraph database, a
// third client's app.session is answered at once. And the token exchange
// redirects only to a path of the app itself.

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function call(b: Bridge, route: string, body: string | undefined, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${b.port}`, authorization: `Bearer ${b.token}`, 'content-type': 'application/json' };
    const req = httpRequest({ host: '127.0.0.1', port: b.port, path: route, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const codeOf = (r: Reply): string => (JSON.parse(r.body) as { error?: { code?: string } }).error?.code ?? '';

let base: string;
let bridge: Bridge;
let project: string;
const facade = createFacade({ mode: 'browser' });

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-bridge-isolation-'));
  await createDemoWorkspace(path.join(base, 'demo'), { records: 10, seed: 1 });
  bridge = await startBridge({ dispatcher: facade.dispatcher });
  const opened = await call(bridge, '/api/project.open', JSON.stringify({ path: path.join(base, 'demo') }));
  project = (JSON.parse(opened.body) as { value: { project: string } }).value.project;
}, 120_000);

afterAll(async () => {
  await bridge.close();
  await facade.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** `n` mapping keys of YAML, one per line (`k00001: v`), as the hostile input of the report. */
const manyKeys = (n: number, prefix = ''): string => `${prefix}${Array.from({ length: n }, (_, i) => `k${String(i).padStart(5, '0')}: v\n`).join('')}`;

describe('one request never blocks the others', () => {
  it('while one client sends the 60k-key ontology (and a 10,000-class one that must be parsed) and another opens a FIFO path, a third client\u2019s app.session answers in under 200 ms', async () => {
    const fifo = path.join(base, 'f.sqlite');
    execFileSync('mkfifo', [fifo]);
    const huge = manyKeys(60_000);
    expect(Buffer.byteLength(huge)).toBeLessThan(1024 * 1024);
    // Under the key limit, so it is really parsed (on the parse thread), then refused by the model rules: no write.
    const heavy = `classes:\n${Array.from({ length: 9_999 }, (_, i) => `  - id: c${i}\n    label: Class ${i}\n    parent_class_id: null\n`).join('')}  - id: Not An Id\n    label: last\n`;
    const adopt = (source: string) => call(bridge, '/api/workspace.adopt_ontology', JSON.stringify({ project, source, source_format: 'yaml', mode: 'advisory', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000e001' }));
    let pending = true;
    const slow = Promise.all([adopt(huge), adopt(heavy), call(bridge, '/api/threads.list', JSON.stringify({ source: { kind: 'sqlite', path: fifo } }))]).finally(() => {
      pending = false;
    });
    const latencies: number[] = [];
    let duringHeavy = 0;
    // The third client asks again and again until the others are answered: every answer must be prompt.
    while (pending) {
      const t0 = performance.now();
      const r = await call(bridge, '/api/app.session', '{}');
      latencies.push(performance.now() - t0);
      expect(r.status).toBe(200);
      if (pending) duringHeavy++;
    }
    const [hugeReply, heavyReply, fifoReply] = await slow;
    expect([codeOf(hugeReply), JSON.parse(hugeReply.body).error.details.kind]).toEqual(['GF_RESOURCE_LIMIT', 'keys']);
    expect(codeOf(heavyReply)).toBe('GF_VALIDATION');
    expect(JSON.parse(heavyReply.body).error.details.rule).toBe('workspace.ontology.id_format');
    expect(codeOf(fifoReply)).toBe('GF_IO');
    // The bound, as a distribution: a request that waited for the parse would wait for all of it
    // (seconds: 97 s for the 60k keys before), so it would fail every line below. A loaded 2-core
    // machine adds single scheduler stalls of ~100 ms that no code of ours causes; the 95th percentile
    // holds the 200 ms, and no answer may take a second.
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    expect(at(0.5)).toBeLessThan(50);
    expect(at(0.95)).toBeLessThan(200);
    expect(at(1)).toBeLessThan(1000);
    // The session calls overlapped the heavy parse (it takes far longer than one loopback round trip).
    expect(duringHeavy).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

describe('the token exchange', () => {
  it('redirects only to a path of the app itself (never //evil.example/ or /\\evil.example/)', async () => {
    for (const [route, location] of [
      [`//evil.example/?token=${bridge.token}`, '/evil.example/'],
      [`/\\evil.example/?token=${bridge.token}`, '/evil.example/'],
      [`///evil.example/x?token=${bridge.token}`, '/evil.example/x'],
      [`/threads?token=${bridge.token}`, '/threads'],
    ] as const) {
      const r = await call(bridge, route, undefined, 'GET');
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe(location);
    }
  });
});
