// The renderer's one client: typed `invoke` over Electron IPC (preload) or the
// browser-mode bridge (fetch + the session cookie). Imports only the shared contract.
import type { OperationInput, OperationName, OperationResult } from '../core/contract/operations';
import { serverUnreachable } from '../core/contract/errors';
import { API_PREFIX, GF_BRIDGE_GLOBAL, decodeHttpResponse, decodeIpcAnswer, unwrapEnvelope, type GfBridgeApi } from '../core/contract/wire';

/** Which transport this page uses. */
export type Transport = 'ipc' | 'http';

function preloadApi(): GfBridgeApi | undefined {
  return (globalThis as unknown as Record<string, GfBridgeApi | undefined>)[GF_BRIDGE_GLOBAL];
}

/** The transport in use. */
export function transport(): Transport {
  return preloadApi() === undefined ? 'http' : 'ipc';
}

/** Calls one contract operation; resolves to its typed result or throws the rebuilt `GfError`. */
export async function invoke<N extends OperationName>(op: N, request: OperationInput<N>): Promise<OperationResult<N>> {
  const api = preloadApi();
  if (api !== undefined) {
    return unwrapEnvelope(decodeIpcAnswer<N>(await api.invoke(op, request)));
  }
  // Browser mode: the session cookie (set when the printed URL's token was
  // exchanged) authenticates the call; the page never holds the token.
  let res: Response;
  try {
    res = await fetch(`${API_PREFIX}${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    // The server stopped or the network dropped: "Lost connection to the Checkpoint Studio server", never a file error.
    throw serverUnreachable();
  }
  return unwrapEnvelope(await decodeHttpResponse<N>(res));
}
