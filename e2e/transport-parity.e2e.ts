// Every contract operation is reachable from the page through this run's door
// (the preload's `window.gf.invoke` over IPC, or `POST /api/<op>` over HTTP),
// and main answers each with a typed envelope naming that operation: the full
// list comes from core/contract, one call each with a deliberately invalid
// request (an undeclared key), so nothing runs and nothing changes. A name
// that is not an operation is refused the same way on both doors; a caller
// that is not the app's own page gets nothing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../core/contract/operations';
import { API_PREFIX, decodeHttpResponse, isEnvelope, type Envelope } from '../core/contract/wire';
import { TRANSPORT } from './support/app';
import { startDemoApp, type DemoApp } from './support/demo-app';

let app: DemoApp;
let page: Page;

/** One call through the page's own door, as the renderer makes it. */
async function fromPage(target: Page, op: string, request: unknown): Promise<Envelope> {
  if (TRANSPORT === 'ipc') {
    const answer: unknown = await target.evaluate(([o, r]) => (globalThis as unknown as { gf: { invoke(op: string, req: unknown): Promise<unknown> } }).gf.invoke(o, r), [op, request] as const);
    if (!isEnvelope(answer)) throw new Error(`not an envelope: ${JSON.stringify(answer)}`);
    return answer;
  }
  const res = await target.evaluate(
    async ([prefix, o, r]) => {
      // The name exactly as given (a URL would drop a trailing space of the raw text).
      const got = await fetch(`${prefix}${encodeURIComponent(o)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r), credentials: 'same-origin' });
      return { status: got.status, type: got.headers.get('content-type'), body: await got.text() };
    },
    [API_PREFIX, op, request] as const,
  );
  return decodeHttpResponse({ status: res.status, headers: { get: (n) => (n.toLowerCase() === 'content-type' ? res.type : null) }, arrayBuffer: async () => new TextEncoder().encode(res.body).buffer });
}

beforeAll(async () => {
  app = await startDemoApp({ prefix: 'gf-parity-', records: 10 });
  page = await app.browser.context.newPage();
  await page.goto(app.serve.url);
  await page.getByTestId('generation-count').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe(`every contract operation through the page's door (${TRANSPORT})`, () => {
  it('the app offers exactly the contract\'s operations', async () => {
    const session = await fromPage(page, 'app.session', {});
    expect(session.ok).toBe(true);
    expect(session.ok && (session.value as { operations: unknown }).operations).toEqual([...OPERATION_NAMES]);
  });

  it('each operation reaches main and is answered as that operation (a typed refusal of the invalid request, never "unknown operation")', async () => {
    const answers: Record<string, unknown> = {};
    for (const op of OPERATION_NAMES) {
      const env = await fromPage(page, op, { parity_probe: 1 });
      answers[op] = env.ok ? 'ok' : [env.error.code, env.error.details['operation'], env.error.details['unexpected_keys'], env.error.message.includes('unknown operation')];
    }
    expect(answers).toEqual(Object.fromEntries(OPERATION_NAMES.map((op) => [op, ['GF_VALIDATION', op, true, false]])));
  });

  it('a name that is not an operation is refused as one, on either door', async () => {
    for (const name of ['checkpoints.nope', 'Checkpoints.list', 'constructor', '__proto__', 'toString', 'checkpoints.list ']) {
      const env = await fromPage(page, name, {});
      expect(env.ok ? 'ok' : [env.error.code, env.error.message], name).toEqual(['GF_VALIDATION', 'GF_VALIDATION: unknown operation']);
    }
  });

  it(TRANSPORT === 'ipc' ? 'a page that is not the app\'s own index gets the preload but main refuses it (untrusted sender)' : 'a caller without the session cookie or the token gets no answer (session expired)', async () => {
    if (TRANSPORT === 'ipc') {
      const other = join(app.base, 'other.html');
      writeFileSync(other, '<!doctype html><title>not the app</title>');
      const tab = await app.browser.context.newPage();
      try {
        await tab.goto(pathToFileURL(other).href);
        const env = await fromPage(tab, 'app.session', {});
        expect(env.ok ? 'ok' : [env.error.code, env.error.details['reason']]).toEqual(['GF_VALIDATION', 'untrusted_sender']);
      } finally {
        await tab.close();
      }
    } else {
      const res = await fetch(`${app.serve.origin}${API_PREFIX}app.session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const env = await decodeHttpResponse(res);
      expect([res.status, env.ok ? 'ok' : env.error.code]).toEqual([401, 'GF_SESSION_EXPIRED']);
    }
  });
});
