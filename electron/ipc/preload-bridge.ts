// Renderer-side IPC (runs in the sandboxed preload): exposes one `invoke`.
import { contextBridge, ipcRenderer } from 'electron';
import { GF_BRIDGE_GLOBAL, ipcChannel, type GfBridgeApi } from '../../core/contract/wire';
import type { OperationName } from '../../core/contract/operations';

const OP_NAME = /^[a-z]+\.[a-z]+$/;

/** Exposes `window.gf.invoke(op, request)`; the main process validates everything. */
export function exposeInvoke(): void {
  const api: GfBridgeApi = {
    invoke: (op, request) => {
      if (typeof op !== 'string' || !OP_NAME.test(op)) {
        return Promise.resolve({ ok: false, error: { code: 'GF_VALIDATION', committed: null, message: 'GF_VALIDATION: unknown operation', details: {} } });
      }
      return ipcRenderer.invoke(ipcChannel(op as OperationName), request);
    },
  };
  contextBridge.exposeInMainWorld(GF_BRIDGE_GLOBAL, api);
}
