// Browser mode: a loopback HTTP server that serves the built renderer and the
// same dispatcher Electron IPC uses, behind a per-launch token.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { GfError, toWireError } from '../errors';
import { OPERATIONS, isOperationName, type ArrowResult } from '../contract/operations';
import type { Dispatcher } from './dispatcher';
import { SECURITY_HEADERS } from './security';
import { API_PREFIX, ARROW_STREAM_MEDIA_TYPE, NEXT_PAGE_TOKEN_HEADER, errorEnvelope, type Envelope } from '../contract/wire';

/** Request bodies above this are refused with 413 before parsing. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The only interface the bridge ever binds. */
export const BRIDGE_HOST = '127.0.0.1';

/** Folder of the renderer build whose file names carry a content hash (Vite's `assets/`). */
const HASHED_ASSETS_DIR = 'assets';
/** Hashed assets up to this size are kept in memory once read. */
const MAX_CACHED_ASSET_BYTES = 16 * 1024 * 1024;

/** Bridge options. */
export interface BridgeOptions {
  readonly dispatcher: Dispatcher;
  /** Directory of the built renderer (`out/renderer`); without it only `/api/` is served. */
  readonly rendererDir?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly maxBodyBytes?: number;
}

/** A running bridge. */
export interface Bridge {
  /** The address the socket is bound to (always `127.0.0.1`). */
  readonly address: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /**
   * The per-launch secret. A browser exchanges it once (`GET /?token=…`) for
   * a session cookie; a programmatic client may send it as
   * `Authorization: Bearer <token>` on every API call instead.
   */
  readonly token: string;
  /**
   * The URL to open (`http://127.0.0.1:<port>/?token=…`): the bridge answers
   * it with the session cookie and a redirect to the clean URL, so the token
   * leaves the address bar and the history at once.
   */
  readonly url: string;
  /** The session cookie's name (per port: cookies are shared between ports of one host). */
  readonly cookieName: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

function send(res: ServerResponse, status: number, body: string | Uint8Array, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

function sendEnvelope(res: ServerResponse, status: number, env: Envelope): void {
  send(res, status, JSON.stringify(env), 'application/json; charset=utf-8');
}

function refuse(res: ServerResponse, status: number, reason: string, code: 'GF_VALIDATION' | 'GF_SESSION_EXPIRED' = 'GF_VALIDATION'): void {
  sendEnvelope(res, status, errorEnvelope({ code, committed: null, message: `${code}: ${reason}`, details: { http_status: status } }));
}

/** `pathname` as a path of this origin: leading slashes and backslashes collapse to one `/` (never a protocol-relative URL). */
export function ownPath(pathname: string): string {
  return `/${pathname.replace(/^[/\\]+/, '')}`;
}

/** Session cookies are named `gf_session_<port>`. */
export const SESSION_COOKIE_PREFIX = 'gf_session_';

/** Browser sessions kept at once; the oldest is forgotten beyond this (it signs in again with the printed URL). */
export const MAX_BROWSER_SESSIONS = 64;

/** The value of cookie `name` in a `Cookie` header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The bridge's browser sessions: random ids (never the token) handed out as
 * cookies, held in memory only, so every one ends when the server stops.
 */
class BrowserSessions {
  readonly #ids = new Set<string>();

  /** A new session id. */
  open(): string {
    const id = randomBytes(32).toString('base64url');
    this.#ids.add(id);
    if (this.#ids.size > MAX_BROWSER_SESSIONS) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
    return id;
  }

  /** True for a live session id (constant-time per candidate). */
  has(id: string | null): boolean {
    if (id === null) return false;
    let found = false;
    for (const known of this.#ids) if (secretMatches(id, known)) found = true;
    return found;
  }
}

/** Constant-time comparison of a secret given by a client with the real one. */
function secretMatches(given: string, want: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(want, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  return secretMatches(header.slice(7), token);
}

/**
 * The page shown for a navigation with a session that no longer exists: a
 * stale link (a token from an earlier run) or a session cookie of a server
 * that restarted. Static, script-free (the CSP holds).
 */
const EXPIRED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkpoint Studio: link expired</title></head>
<body><main><h1>Checkpoint Studio</h1>
<p role="alert" data-testid="link-expired">This link has expired; open the link printed at start.</p>
<p>The link printed at start (by npm start or gf serve) signs this browser in until the server stops. A link from an earlier run cannot.</p>
</main></body></html>
`;

/**
 * The page shown for an address without the token and without a session (a
 * deep link or bookmark opened in a browser not signed in): nothing expired,
 * the sign-in link was simply not used here.
 */
const NO_SESSION_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkpoint Studio: open the link printed at start</title></head>
<body><main><h1>Checkpoint Studio</h1>
<p role="alert" data-testid="link-no-session">Open the link printed at start: this address has no sign-in token.</p>
<p>npm start and gf serve print a link with a token; opening it signs this browser in, and then this address (and any deep link) works until the server stops.</p>
</main></body></html>
`;

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > max) return 'too_large';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    total += b.length;
    if (total > max) return 'too_large';
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

function isArrowResult(v: unknown): v is ArrowResult {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'arrow' && (v as { bytes?: unknown }).bytes instanceof Uint8Array;
}

/** Reads the hashed assets into `into` (a missing folder is simply nothing to preload). */
async function preloadAssets(dir: string, into: Map<string, Buffer>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const full = join(dir, name);
    try {
      const st = await lstat(full);
      if (st.isFile() && st.size <= MAX_CACHED_ASSET_BYTES) into.set(full, await readFile(full));
    } catch {
      // Unreadable now: served (or refused) from disk on request.
    }
  }
}

/** Starts the bridge on 127.0.0.1 (only). */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const token = randomBytes(32).toString('base64url');
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let allowedHosts: ReadonlySet<string> = new Set();
  let origin = '';
  let cookieName = '';
  const sessions = new BrowserSessions();

  /** The request's own origin when it is one of ours (`127.0.0.1` or `localhost` at our port). */
  const ownOrigin = (from: string | undefined): boolean => from !== undefined && (from === origin || from === origin.replace(BRIDGE_HOST, 'localhost'));
  const hasSession = (req: IncomingMessage): boolean => sessions.has(cookieValue(req.headers.cookie, cookieName));

  async function handleApi(req: IncomingMessage, res: ServerResponse, op: string): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'method not allowed');
    // A browser call carries the session cookie and its own Origin (SameSite=Strict
    // plus the Origin check: no other site can ride the cookie); a programmatic
    // client carries the token.
    const byCookie = hasSession(req) && ownOrigin(req.headers.origin);
    if (!byCookie && !tokenMatches(req.headers.authorization, token)) {
      const message = cookieValue(req.headers.cookie, cookieName) === null && req.headers.authorization === undefined
        ? 'open the link printed at start: this page has no sign-in token'
        : 'this link has expired; open the link printed at start';
      return refuse(res, 401, message, 'GF_SESSION_EXPIRED');
    }
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/json')) return refuse(res, 415, 'content type must be application/json');
    const body = await readBody(req, maxBody);
    if (body === 'too_large') {
      res.setHeader('connection', 'close');
      return refuse(res, 413, 'request body too large');
    }
    let payload: unknown;
    try {
      payload = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      return sendEnvelope(res, 400, errorEnvelope(toWireError(new GfError('GF_VALIDATION', 'request body is not JSON', {}))));
    }
    // A client that goes away (an aborted fetch, a closed tab) cancels its cancellable operation.
    const operationId = typeof payload === 'object' && payload !== null ? (payload as { operation_id?: unknown }).operation_id : undefined;
    let answered = false;
    if (typeof operationId === 'string') {
      res.once('close', () => {
        if (!answered) void options.dispatcher.dispatch('operation.cancel', { operation_id: operationId });
      });
    }
    const env = await options.dispatcher.dispatch(op, payload);
    answered = true;
    if (env.ok && isOperationName(op) && OPERATIONS[op].result === 'arrow' && isArrowResult(env.value)) {
      const v = env.value;
      return send(res, 200, v.bytes, ARROW_STREAM_MEDIA_TYPE, v.next_page_token === null ? {} : { [NEXT_PAGE_TOKEN_HEADER]: v.next_page_token });
    }
    return sendEnvelope(res, env.ok ? 200 : 422, env);
  }

  // Content-hashed build assets never change under their name: once read they
  // are served from memory, in the same turn as the request, so a page's app
  // chunk does not queue behind the engine work of its own first API calls.
  const assets = new Map<string, Buffer>();

  async function handleStatic(req: IncomingMessage, res: ServerResponse, pathname: string, search: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
    const given = new URLSearchParams(search).get('token');
    if (given !== null) {
      // The one exchange: a valid token becomes a session cookie and a redirect
      // to the same path without the query (the fragment — a deep link — is
      // kept by the browser). The token is never echoed back.
      if (!secretMatches(given, token)) return send(res, 403, EXPIRED_PAGE, 'text/html; charset=utf-8');
      const cookie = `${cookieName}=${sessions.open()}; HttpOnly; SameSite=Strict; Path=/`;
      // Only a path of the app itself: `//host/…` or `/\host/…` would be another site to a browser.
      return send(res, 303, '', 'text/plain; charset=utf-8', { location: ownPath(pathname), 'set-cookie': cookie });
    }
    if (!hasSession(req)) return send(res, 401, cookieValue(req.headers.cookie, cookieName) === null ? NO_SESSION_PAGE : EXPIRED_PAGE, 'text/html; charset=utf-8');
    const root = options.rendererDir;
    if (root === undefined) return send(res, 404, 'not found', 'text/plain; charset=utf-8');
    let rel: string;
    try {
      rel = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
    } catch {
      return send(res, 400, 'bad path', 'text/plain; charset=utf-8');
    }
    if (rel.includes('\0')) return send(res, 400, 'bad path', 'text/plain; charset=utf-8');
    const full = normalize(join(root, rel));
    if (!full.startsWith(normalize(root) + sep)) return send(res, 404, 'not found', 'text/plain; charset=utf-8');
    const type = CONTENT_TYPES[extname(full)] ?? 'application/octet-stream';
    const cached = assets.get(full);
    if (cached !== undefined) return send(res, 200, req.method === 'HEAD' ? '' : cached, type);
    try {
      const st = await lstat(full);
      if (!st.isFile()) return send(res, 404, 'not found', 'text/plain; charset=utf-8');
      // A symlinked directory inside the renderer directory must not lead out of it: the real path must stay under the real root.
      const [realRoot, realFull] = await Promise.all([realpath(root), realpath(full)]);
      if (!realFull.startsWith(realRoot + sep)) return send(res, 404, 'not found', 'text/plain; charset=utf-8');
      const bytes = await readFile(realFull);
      if (full.startsWith(join(normalize(root), HASHED_ASSETS_DIR) + sep) && st.size <= MAX_CACHED_ASSET_BYTES) assets.set(full, bytes);
      return send(res, 200, req.method === 'HEAD' ? '' : bytes, type);
    } catch {
      return send(res, 404, 'not found', 'text/plain; charset=utf-8');
    }
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      // DNS rebinding: only our own loopback authority is ever served.
      if (!allowedHosts.has(req.headers.host ?? '')) return refuse(res, 403, 'host not allowed');
      // A cross-site page may not drive the API even if it guessed the token.
      const from = req.headers.origin;
      if (from !== undefined && from !== origin && from !== origin.replace(BRIDGE_HOST, 'localhost')) return refuse(res, 403, 'origin not allowed');
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const pathname = q === -1 ? url : url.slice(0, q);
      if (pathname.startsWith(API_PREFIX)) return handleApi(req, res, pathname.slice(API_PREFIX.length));
      return handleStatic(req, res, pathname, q === -1 ? '' : url.slice(q + 1));
    })().catch(() => {
      if (!res.headersSent) sendEnvelope(res, 500, errorEnvelope(toWireError(new Error('internal'))));
      else res.destroy();
    });
  });

  // Preloading overlaps listening (the bridge still answers only once both are done).
  await Promise.all([
    options.rendererDir !== undefined ? preloadAssets(join(normalize(options.rendererDir), HASHED_ASSETS_DIR), assets) : undefined,
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, BRIDGE_HOST, () => resolve());
    }),
  ]);
  const bound = server.address() as AddressInfo;
  const port = bound.port;
  origin = `http://${BRIDGE_HOST}:${port}`;
  allowedHosts = new Set([`${BRIDGE_HOST}:${port}`, `localhost:${port}`]);
  cookieName = `${SESSION_COOKIE_PREFIX}${port}`;
  return {
    address: bound.address,
    port,
    origin,
    token,
    url: `${origin}/?token=${token}`,
    cookieName,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
