// The wire envelope every surface uses (IPC, HTTP, in-process). Browser-safe.
import { isGfCode } from '../errors';
import { fromWireError, type OperationError, type WireError } from './errors';
import type { OperationName } from './operation-names';
import type { ArrowResult, OperationResult } from './operations';

/**
 * What a handler returns across a boundary.
 *
 * Errors are plain values, because `ipcMain.handle` rejections keep only the
 * message and HTTP has no exceptions; the receiving side rebuilds the typed error (core/contract/errors.ts).
 */
export type Envelope<T = unknown> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: WireError };

/** The success envelope. */
export function okEnvelope<T>(value: T): Envelope<T> {
  return { ok: true, value };
}

/** The failure envelope. */
export function errorEnvelope(error: WireError): Envelope<never> {
  return { ok: false, error };
}

/** Unwraps an envelope: the value, or throws the rebuilt typed error. */
export function unwrapEnvelope<T>(env: Envelope<T>): T {
  if (env.ok) return env.value;
  throw fromWireError(env.error);
}

/** Structural check for envelopes received from an untrusted transport. */
export function isEnvelope(v: unknown): v is Envelope {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as { ok?: unknown; value?: unknown; error?: unknown };
  if (o.ok === true) return 'value' in o;
  if (o.ok !== false || typeof o.error !== 'object' || o.error === null) return false;
  const e = o.error as Partial<WireError>;
  return typeof e.code === 'string' && typeof e.message === 'string' && typeof e.details === 'object' && e.details !== null;
}

// --------------------------------------------------------------- HTTP transport

/** Media type of Arrow IPC stream bodies. */
export const ARROW_STREAM_MEDIA_TYPE = 'application/vnd.apache.arrow.stream';
/** Response header carrying an Arrow result's next-page token (also in the schema metadata). */
export const NEXT_PAGE_TOKEN_HEADER = 'x-gf-next-page-token';
/** The bridge's API path prefix: `POST /api/<operation>`. */
export const API_PREFIX = '/api/';

// --------------------------------------------------------------- IPC transport

/** The IPC channel of an operation. */
export function ipcChannel(op: OperationName): string {
  return `gf:${op}`;
}

/**
 * What the renderer makes of an IPC answer: the envelope main sent, or
 * `GF_PROTOCOL` when the answer is not one (as for an HTTP body that is not an
 * envelope).
 */
export function decodeIpcAnswer<N extends OperationName>(answer: unknown): Envelope<OperationResult<N>> {
  if (isEnvelope(answer)) return answer as Envelope<OperationResult<N>>;
  return errorEnvelope({ code: 'GF_PROTOCOL', committed: null, message: 'GF_PROTOCOL: the desktop shell answered with something that is not a result', details: {} });
}

/** A minimal view of a fetch `Response` (so Node tests and the browser share the decoder). */
export interface HttpResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * Decodes a bridge response into an envelope.
 *
 * Arrow results arrive as raw IPC stream bytes (no base64, no JSON), every
 * other result and every error as a JSON envelope. A refused session (401,
 * 403) is `GF_SESSION_EXPIRED`; any other body that is not an envelope is
 * `GF_PROTOCOL` with the status. Neither is `GF_IO` (no file was involved).
 */
export async function decodeHttpResponse<N extends OperationName>(res: HttpResponseLike): Promise<Envelope<OperationResult<N>>> {
  const type = res.headers.get('content-type') ?? '';
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status === 200 && type.startsWith(ARROW_STREAM_MEDIA_TYPE)) {
    const token = res.headers.get(NEXT_PAGE_TOKEN_HEADER);
    const value: ArrowResult = { kind: 'arrow', bytes: body, next_page_token: token === null || token === '' ? null : token };
    return okEnvelope(value as OperationResult<N>);
  }
  if (type.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      parsed = undefined;
    }
    if (isEnvelope(parsed)) return parsed as Envelope<OperationResult<N>>;
  }
  if (res.status === 401 || res.status === 403) {
    return errorEnvelope({
      code: 'GF_SESSION_EXPIRED',
      committed: null,
      message: 'GF_SESSION_EXPIRED: this link has expired; use the URL that `npm start` printed',
      details: { http_status: res.status },
    });
  }
  return errorEnvelope({ code: 'GF_PROTOCOL', committed: null, message: 'GF_PROTOCOL: the server refused the call', details: { http_status: res.status } });
}

/** Rebuilds the typed error of a failure envelope (re-exported for clients). */
export function envelopeError(env: Envelope & { ok: false }): OperationError {
  return fromWireError(env.error);
}

/** True when a wire code is one of the closed engine codes (chain-store ids are not). */
export function isEngineCode(code: string): boolean {
  return isGfCode(code);
}

/** Name of the global the preload exposes in Electron (`window.gf`). */
export const GF_BRIDGE_GLOBAL = 'gf';

/** What the preload exposes: one untyped door; the typed client wraps it. */
export interface GfBridgeApi {
  invoke(op: string, request: unknown): Promise<Envelope>;
}
