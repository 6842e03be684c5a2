// The renderer's one client: typed `invoke` over Electron IPC (preload) or the
// browser-mode bridge (fetch + the session cookie). Imports only the shared contract.
import type { OperationInput, OperationName, OperationResult } from '../core/contract/operations';
import { GfError } from '../core/contract/errors';
import { API_PREFIX, GF_BRIDGE_GLOBAL, decodeHttpResponse, unwrapEnvelope, type Envelope, type GfBridgeApi } from '../core/contract/wire';

/** Which transport this page uses. */
export type Transport = 'ipc' | 'http';

function preloadApi(): GfBridgeApi | undefined {
  return (globalThis as unknown as Record<string, GfBridgeApi | undefined>)[GF_BRIDGE_GLOBAL];
}

/**
 * The error of a call the bridge never answered (the server stopped, the
 * network dropped): said as such, never as a file error.
 */
export function connectionLost(): GfError {
  return new GfError('GF_IO', 'Lost connection to the Checkpoint Studio server. Start it again (npm start) and open the URL it prints.', { transport: 'connection_lost' });
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
    throw connectionLost();
  }
  return unwrapEnvelope(await decodeHttpResponse<N>(res));
}
