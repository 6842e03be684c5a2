// Renderer-side IPC (runs in the sandboxed preload): exposes one `invoke`.
// Every rule it applies comes from core/contract: the operation names (the
// dispatcher's own check), the channel naming and the failure envelope.
import { contextBridge, ipcRenderer } from 'electron';
import { toWireError } from '../../core/errors';
import { isOperationName, unknownOperation } from '../../core/contract/operation-names';
import { GF_BRIDGE_GLOBAL, errorEnvelope, ipcChannel, type GfBridgeApi } from '../../core/contract/wire';

/**
 * Exposes `window.gf.invoke(op, request)`. A name that is not a contract
 * operation is refused here as the dispatcher refuses it (no channel exists
 * for it); everything else goes to main, which validates the request.
 */
export function exposeInvoke(): void {
  const api: GfBridgeApi = {
    invoke: (op, request) => {
      if (!isOperationName(op)) return Promise.resolve(errorEnvelope(toWireError(unknownOperation())));
      return ipcRenderer.invoke(ipcChannel(op), request);
    },
  };
  contextBridge.exposeInMainWorld(GF_BRIDGE_GLOBAL, api);
}
