// The app under e2e test, in either of its two transports, behind one handle:
//   - 'http': browser mode (`gf serve` as a child process, the harness's Chromium);
//   - 'ipc': the Electron-shaped pass (./ipc-shell.ts: file://, the real preload,
//     the real main-side handlers).
// Which one a run uses is the vitest project's (vitest.config.ts: `e2e` and
// `e2e-ipc` include the same files), so every e2e file runs in both unless the
// config excludes it from one. Tests reach the transport only through this
// handle: the launch URL, deep links, and `wire(page)` (calls seen, held,
// answered) instead of `page.route('**/api/…')`.
import type { Page, Request, Response } from 'playwright-core';
import { inject } from 'vitest';
import { OPERATION_NAMES, type OperationName } from '../../core/contract/operations';
import { API_PREFIX, decodeHttpResponse, ipcChannel, isEnvelope, type Envelope } from '../../core/contract/wire';
import { launchChromium, startServe, type BrowserHandle, type ServeHandle } from './browser';
import { ELECTRON_FILE_ARGS, startIpcShell, type IpcShell } from './ipc-shell';

/** The two transports every UI flow runs over. */
export const TRANSPORTS = ['http', 'ipc'] as const;
export type Transport = (typeof TRANSPORTS)[number];

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set per e2e project in vitest.config.ts. */
    e2eTransport: Transport;
    /** The run's shared demo workspaces (./global-setup.ts). */
    e2eDemoCache: string;
  }
}

/** This run's transport (the vitest project's; `http` when a file runs outside the e2e projects). */
export const TRANSPORT: Transport = (inject('e2eTransport') as Transport | undefined) ?? 'http';

/** What the page's header says about its mode and transport (the session's `mode` and `transport()`). */
export const MODE_LINE: Readonly<Record<Transport, string>> = { http: 'browser mode over http', ipc: 'electron mode over ipc' };

/** One call the page made, with the answer it got (a rebuilt envelope in either transport). */
export interface WireCall {
  readonly op: string;
  readonly request: unknown;
  readonly envelope: Promise<Envelope>;
}

/** A predicate on a call's request (the parsed JSON body, or the IPC argument). */
export type RequestMatch = (request: unknown) => boolean;

/** Calls held before they reach the engine, until `release()`. */
export interface Held {
  /** Resolves when the first matching call is being held. */
  readonly arrived: Promise<void>;
  /** Lets every held call (and later ones) through and removes the hold. */
  release(): Promise<void>;
}

/** The page's calls, whatever the transport (the e2e counterpart of a network panel). */
export interface Wire {
  /** Calls `listener` for every call the page makes from now on (with its answer to come); returns its removal. */
  observe(listener: (call: WireCall) => void): () => void;
  /** The names of the operations the page calls from now on, in order, until `stop()`. */
  record(): { readonly ops: string[]; stop(): void };
  /** The next call of `op` (whose request matches). Start waiting before the action that makes it. */
  next(op: string, match?: RequestMatch): Promise<WireCall>;
  /** Holds calls of `op` (whose request matches) before they reach the engine. */
  hold(op: string, match?: RequestMatch): Promise<Held>;
  /** The next call of `op` reaches the engine, and its answer is lost on the way back; `answered` is that answer. */
  loseAnswer(op: string): Promise<{ readonly answered: Promise<Envelope> }>;
  /** The next call of `op` reaches the engine at once; the page gets the answer only after `release()`. */
  holdAnswer(op: string): Promise<{ readonly answered: Promise<Envelope>; release(): Promise<void> }>;
}

/** The running app: Chromium plus either `gf serve` or the Electron-shaped main. */
export interface AppHandle {
  readonly transport: Transport;
  readonly browser: BrowserHandle;
  /**
   * `url` is where a launch opens the app (browser: the URL `gf serve` printed;
   * desktop: the built index, as `loadFile` opens it). The server's `origin`,
   * `token` and `child` exist only over http (reading them in the ipc pass throws).
   */
  readonly serve: ServeHandle;
  /** The Electron-shaped main (ipc pass only; null over http). */
  readonly shell: IpcShell | null;
  /** A deep link to `hash` (`#/screen?…`) in the running app (not the launch URL: no token). */
  link(hash: string): string;
  /** Calls the app's own main side directly (`gf serve` over HTTP, or main's dispatcher): what it holds, not what the page believes. */
  callApp(op: OperationName, request: unknown): Promise<Envelope>;
  wire(page: Page): Wire;
  close(): Promise<void>;
}

const none = (): boolean => true;

function httpRequestOf(r: Request): unknown {
  const body = r.postData();
  if (body === null) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** A bridge response decoded as the renderer decodes it (core/contract/wire.ts). */
function decodeBody(status: number, headers: Record<string, string>, body: Buffer): Promise<Envelope> {
  return decodeHttpResponse({
    status,
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
  });
}

async function httpEnvelope(res: Response | null): Promise<Envelope> {
  if (res === null) throw new Error('the request got no response');
  return decodeBody(res.status(), res.headers(), await res.body());
}

function httpOp(r: Request): string | null {
  const path = new URL(r.url()).pathname;
  return path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : null;
}

/** An answer nobody may await (a call whose page went away) never becomes an unhandled rejection. */
function quiet(p: Promise<Envelope>): Promise<Envelope> {
  p.catch(() => undefined);
  return p;
}

function httpWire(page: Page): Wire {
  const callOf = (r: Request, op: string): WireCall => ({ op, request: httpRequestOf(r), envelope: quiet(r.response().then(httpEnvelope)) });
  const wire: Wire = {
    observe(listener) {
      const log = (r: Request): void => {
        const op = httpOp(r);
        if (op !== null) listener(callOf(r, op));
      };
      page.on('request', log);
      return () => void page.off('request', log);
    },
    record() {
      const ops: string[] = [];
      return { ops, stop: wire.observe((c) => ops.push(c.op)) };
    },
    async next(op, match = none) {
      const r = await page.waitForRequest((req) => httpOp(req) === op && match(httpRequestOf(req)), { timeout: 0 });
      return callOf(r, op);
    },
    async hold(op, match = none) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let arrived!: () => void;
      const arrival = new Promise<void>((r) => (arrived = r));
      const pattern = `**${API_PREFIX}${op}`;
      // Handlers still at work when the hold is released finish before the route goes (Playwright refuses a route handled twice).
      const inFlight = new Set<Promise<void>>();
      await page.route(pattern, (route) => {
        const handled = (async () => {
          if (match(httpRequestOf(route.request()))) {
            arrived();
            await held;
          }
          await route.continue();
        })();
        inFlight.add(handled);
        return handled.finally(() => inFlight.delete(handled));
      });
      return {
        arrived: arrival,
        async release() {
          release();
          await Promise.allSettled([...inFlight]);
          await page.unroute(pattern);
        },
      };
    },
    async loseAnswer(op) {
      let answered!: (e: Envelope) => void;
      const answer = new Promise<Envelope>((r) => (answered = r));
      const pattern = `**${API_PREFIX}${op}`;
      await page.route(
        pattern,
        async (route) => {
          const res = await route.fetch();
          answered(await decodeBody(res.status(), res.headers(), await res.body()));
          await route.abort('connectionreset');
        },
        { times: 1 },
      );
      return { answered: answer };
    },
    async holdAnswer(op) {
      let answered!: (e: Envelope) => void;
      const answer = new Promise<Envelope>((r) => (answered = r));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const pattern = `**${API_PREFIX}${op}`;
      let handled: Promise<void> | null = null;
      await page.route(
        pattern,
        (route) => {
          handled = (async () => {
            const res = await route.fetch();
            answered(await decodeBody(res.status(), res.headers(), await res.body()));
            await gate;
            await route.fulfill({ response: res });
          })();
          return handled;
        },
        { times: 1 },
      );
      return {
        answered: answer,
        async release() {
          release();
          if (handled !== null) await handled;
          await page.unroute(pattern);
        },
      };
    },
  };
  return wire;
}

function ipcWire(shell: IpcShell, page: Page): Wire {
  // The operation a channel belongs to, by the contract's own channel naming (a channel of no operation stays as it is).
  const opOf = (channel: string): string => OPERATION_NAMES.find((n) => ipcChannel(n) === channel) ?? channel;
  const asEnvelope = (answer: Promise<unknown>): Promise<Envelope> =>
    quiet(answer.then((v) => (isEnvelope(v) ? v : Promise.reject(new Error('main answered with something that is not an envelope')))));
  const wire: Wire = {
    observe(listener) {
      return shell.intercept(page, (call, next) => {
        const answer = next();
        listener({ op: opOf(call.channel), request: call.args[0], envelope: asEnvelope(answer) });
        return answer;
      });
    },
    record() {
      const ops: string[] = [];
      return { ops, stop: wire.observe((c) => ops.push(c.op)) };
    },
    next(op, match = none) {
      return new Promise<WireCall>((resolve) => {
        const stop = shell.intercept(page, (call, next) => {
          if (opOf(call.channel) !== op || !match(call.args[0])) return next();
          stop();
          const answer = next();
          resolve({ op, request: call.args[0], envelope: asEnvelope(answer) });
          return answer;
        });
      });
    },
    async hold(op, match = none) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let arrived!: () => void;
      const arrival = new Promise<void>((r) => (arrived = r));
      const stop = shell.intercept(page, async (call, next) => {
        if (opOf(call.channel) === op && match(call.args[0])) {
          arrived();
          await held;
        }
        return next();
      });
      return {
        arrived: arrival,
        async release() {
          release();
          stop();
        },
      };
    },
    async loseAnswer(op) {
      let answered!: (e: Envelope) => void;
      const answer = new Promise<Envelope>((r) => (answered = r));
      const stop = shell.intercept(page, async (call, next) => {
        if (opOf(call.channel) !== op) return next();
        stop();
        const v = await next();
        answered(v as Envelope);
        throw new Error('the reply was lost (test)');
      });
      return { answered: answer };
    },
    async holdAnswer(op) {
      let answered!: (e: Envelope) => void;
      const answer = new Promise<Envelope>((r) => (answered = r));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const stop = shell.intercept(page, async (call, next) => {
        if (opOf(call.channel) !== op) return next();
        stop();
        const v = await next();
        answered(v as Envelope);
        await gate;
        return v;
      });
      return {
        answered: answer,
        async release() {
          release();
          stop();
        },
      };
    },
  };
  return wire;
}

/** A `serve` for the ipc pass: the launch URL, and a clear failure for what only a server has. */
function desktopServe(indexUrl: string): ServeHandle {
  const only = (what: string): never => {
    throw new Error(`e2e: the desktop (ipc) pass has no server ${what}; use app.link('#/…') for deep links and app.wire(page) for calls`);
  };
  return {
    url: indexUrl,
    get origin(): string {
      return only('origin');
    },
    get token(): string {
      return only('token');
    },
    get child(): never {
      return only('process');
    },
    stop: async () => undefined,
  };
}

/** Starts the app on `projectDir` over this run's transport, and the harness's Chromium. */
export async function launchApp(projectDir: string, transport: Transport = TRANSPORT): Promise<AppHandle> {
  if (transport === 'http') {
    const serve = await startServe(['--project', projectDir]);
    let browser: BrowserHandle;
    try {
      browser = await launchChromium();
    } catch (e) {
      await serve.stop();
      throw e;
    }
    return {
      transport,
      browser,
      serve,
      shell: null,
      link: (hash) => `${serve.origin}/${hash}`,
      async callApp(op, request) {
        const res = await fetch(`${serve.origin}${API_PREFIX}${op}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
          body: JSON.stringify(request),
        });
        return decodeHttpResponse(res);
      },
      wire: (page) => httpWire(page),
      async close() {
        await browser.close();
        await serve.stop();
      },
    };
  }
  const shell = await startIpcShell(projectDir);
  let browser: BrowserHandle;
  try {
    browser = await launchChromium(undefined, ELECTRON_FILE_ARGS);
    await shell.attach(browser.context);
  } catch (e) {
    await shell.close();
    throw e;
  }
  return {
    transport,
    browser,
    serve: desktopServe(shell.indexUrl),
    shell,
    link: (hash) => `${shell.indexUrl}${hash}`,
    callApp: (op, request) => shell.facade.dispatcher.dispatch(op, request),
    wire: (page) => ipcWire(shell, page),
    async close() {
      await browser.close();
      await shell.close();
    },
  };
}
