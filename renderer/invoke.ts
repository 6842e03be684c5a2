// The renderer's one client: typed `invoke` over Electron IPC (preload) or the
// browser-mode bridge (fetch + token). Imports only the shared contract.
import type { OperationInput, OperationName, OperationResult } from '../core/contract/operations';
import { API_PREFIX, GF_BRIDGE_GLOBAL, decodeHttpResponse, unwrapEnvelope, type Envelope, type GfBridgeApi } from '../core/contract/wire';

/** Which transport this page uses. */
export type Transport = 'ipc' | 'http';

function preloadApi(): GfBridgeApi | undefined {
  return (globalThis as unknown as Record<string, GfBridgeApi | undefined>)[GF_BRIDGE_GLOBAL];
}

let token: string | null = null;

/**
 * Reads the bridge token once from the URL fragment (`#token=…`) or query
 * (`?token=…`), keeps it in memory only, and removes it from the address bar.
 */
export function captureToken(): void {
  if (token !== null) return;
  const frag = new URLSearchParams(location.hash.replace(/^#/, ''));
  const query = new URLSearchParams(location.search);
  token = frag.get('token') ?? query.get('token');
  if (token !== null) history.replaceState(null, '', location.pathname);
}

/** The transport in use. */
export function transport(): Transport {
  return preloadApi() === undefined ? 'http' : 'ipc';
}

/** Calls one contract operation; resolves to its typed result or throws the rebuilt `GfError`. */
export async function invoke<N extends OperationName>(op: N, request: OperationInput<N>): Promise<OperationResult<N>> {
  const api = preloadApi();
  if (api !== undefined) {
    return unwrapEnvelope((await api.invoke(op, request)) as Envelope<OperationResult<N>>);
  }
  captureToken();
  const res = await fetch(`${API_PREFIX}${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? ''}` },
    body: JSON.stringify(request),
    credentials: 'omit',
    cache: 'no-store',
  });
  return unwrapEnvelope(await decodeHttpResponse<N>(res));
}
