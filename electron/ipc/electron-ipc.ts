// Binds the IPC handlers to Electron's real ipcMain (main process only).
import { ipcMain } from 'electron';
import type { Dispatcher } from '../../core/api/dispatcher';
import { installIpcHandlers } from './handlers';

/** Registers the contract handlers on Electron's ipcMain. */
export function registerContractHandlers(dispatcher: Dispatcher, isTrustedSender: (url: string | null) => boolean): () => void {
  return installIpcHandlers(ipcMain, dispatcher, isTrustedSender);
}
