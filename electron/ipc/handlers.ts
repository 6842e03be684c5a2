// Main-side IPC: one `handle` per available contract operation. Importable
// without the Electron binary (the ipcMain object is passed in).
import { GfError, toWireError } from '../../core/errors';
import type { Dispatcher } from '../../core/api/dispatcher';
import { errorEnvelope, ipcChannel, type Envelope } from '../../core/contract/wire';

/** The subset of an `IpcMainInvokeEvent` the handlers read. */
export interface InvokeEventLike {
  readonly senderFrame: { readonly url: string } | null;
}

/** The subset of `ipcMain` the handlers use. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<Envelope>): void;
  removeHandler(channel: string): void;
}

/**
 * Registers one handler per operation the dispatcher can run.
 *
 * Each handler first drops calls whose sender frame is not the app's own
 * renderer (`isTrustedSender`), then hands the payload to the dispatcher,
 * which validates it against the contract before the facade sees it.
 * Returns a function that removes every handler.
 */
export function installIpcHandlers(ipc: IpcMainLike, dispatcher: Dispatcher, isTrustedSender: (url: string | null) => boolean): () => void {
  const channels: string[] = [];
  for (const op of dispatcher.available) {
    const channel = ipcChannel(op);
    ipc.handle(channel, async (event, ...args) => {
      if (!isTrustedSender(event.senderFrame?.url ?? null)) {
        return errorEnvelope(toWireError(new GfError('GF_VALIDATION', 'untrusted sender', { operation: op, reason: 'untrusted_sender' })));
      }
      if (args.length !== 1) {
        return errorEnvelope(toWireError(new GfError('GF_VALIDATION', 'exactly one request argument', { operation: op })));
      }
      return dispatcher.dispatch(op, args[0]);
    });
    channels.push(channel);
  }
  return () => {
    for (const c of channels) ipc.removeHandler(c);
  };
}
