// IPC handler installation, driven through a recording ipcMain (the real one
// needs the Electron binary) and the real facade dispatcher.
import { describe, expect, it } from 'vitest';
import { createFacade } from '../../../core/api/facade';
import { ipcChannel, type Envelope } from '../../../core/contract/wire';
import { installIpcHandlers, type InvokeEventLike, type IpcMainLike } from '../../../electron/ipc/handlers';
import { isTrustedSenderUrl, rendererLocation } from '../../../electron/main/config';

type Listener = (event: InvokeEventLike, ...args: unknown[]) => Promise<Envelope>;

function recordingIpc(): IpcMainLike & { readonly handlers: Map<string, Listener> } {
  const handlers = new Map<string, Listener>();
  return {
    handlers,
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
  };
}

const INDEX = 'file:///opt/app/out/renderer/index.html';
const trusted = rendererLocation(undefined, INDEX);
const fromApp: InvokeEventLike = { senderFrame: { url: INDEX } };

describe('IPC handlers', () => {
  it('registers exactly one handler per available operation, and removes them all', () => {
    const facade = createFacade({ mode: 'electron' });
    const ipc = recordingIpc();
    const remove = installIpcHandlers(ipc, facade.dispatcher, (u) => isTrustedSenderUrl(u, trusted));
    expect([...ipc.handlers.keys()].sort()).toEqual(facade.dispatcher.available.map(ipcChannel).sort());
    expect(ipc.handlers.size).toBeGreaterThan(0);
    remove();
    expect(ipc.handlers.size).toBe(0);
  });

  it('answers a trusted sender and refuses untrusted ones before validation or the facade', async () => {
    const facade = createFacade({ mode: 'electron' });
    const ipc = recordingIpc();
    installIpcHandlers(ipc, facade.dispatcher, (u) => isTrustedSenderUrl(u, trusted));
    const session = ipc.handlers.get(ipcChannel('app.session'));
    expect(session).toBeDefined();
    const ok = await session!(fromApp, {});
    expect(ok.ok).toBe(true);
    if (ok.ok) expect((ok.value as { mode: string }).mode).toBe('electron');
    for (const frame of [null, { url: 'https://evil.example/' }, { url: 'file:///tmp/evil.html' }, { url: 'about:blank' }]) {
      const env = await session!({ senderFrame: frame }, {});
      expect(env.ok).toBe(false);
      if (!env.ok) {
        expect(env.error.code).toBe('GF_VALIDATION');
        expect(env.error.details['reason']).toBe('untrusted_sender');
      }
    }
  });

  it('validates the payload with the contract schema (extra keys, __proto__, extra arguments)', async () => {
    const facade = createFacade({ mode: 'electron' });
    const ipc = recordingIpc();
    installIpcHandlers(ipc, facade.dispatcher, (u) => isTrustedSenderUrl(u, trusted));
    const session = ipc.handlers.get(ipcChannel('app.session'))!;
    for (const args of [[{ extra: true }], [JSON.parse('{"__proto__":{"a":1}}')], [null], [], [{}, {}]]) {
      const env = await session(fromApp, ...args);
      expect(env.ok ? 'ok' : env.error.code, JSON.stringify(args)).toBe('GF_VALIDATION');
    }
  });
});
