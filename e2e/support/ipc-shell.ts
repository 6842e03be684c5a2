// The Electron-shaped e2e pass: the app as Electron runs it, minus the
// Electron binary. The built renderer loads from file:// (out/renderer/index.html
// with its CSP meta tag and relative assets), the REAL built preload
// (out/preload/index.cjs) runs before the page's scripts, and the REAL main-side
// handlers (electron/ipc/handlers.ts -> dispatcher -> an Electron-mode facade)
// answer. Only the two Electron primitives the preload touches are stood in for:
//   - `contextBridge.exposeInMainWorld(key, api)` defines `window[key]` (a frozen
//     copy of `api`; Electron refuses to overwrite an existing key, so does this);
//   - `ipcRenderer.invoke(channel, ...args)` structured-clones `args` in the page
//     (as Electron does), carries the clone to the test process
//     (./clone-codec.ts: tagged, so nothing is re-interpreted), calls the handler
//     `installIpcHandlers` registered for `channel` with the sender frame's real
//     URL (so `isTrustedSenderUrl` decides), structured-clones the result and
//     carries it back. A handler that throws, or a channel nobody handles,
//     rejects the page's promise with Electron's own message.
// The stand-in never looks at an operation name, a request or an envelope.
// Main's folder dialog (`app.choose_workspace`) is main's own code
// (electron/main/folder-dialog.ts) over a stand-in of Electron's
// `dialog.showOpenDialog`: it records each call (the window and options main
// passed) and answers what the test set (`dialog.answer`; cancelled by default).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { createFacade, type Facade } from '../../core/api/facade';
import { installIpcHandlers, type InvokeEventLike, type IpcMainLike } from '../../electron/ipc/handlers';
import { isTrustedSenderUrl, rendererLocation, type RendererLocation } from '../../electron/main/config';
import { launchFacadeOptions, readLaunchConfig } from '../../core/api/launch-config';
import { folderDialog, type OpenDialogLike } from '../../electron/main/folder-dialog';
import type { Envelope } from '../../core/contract/wire';
import { decodeClone, encodeClone, type Carried } from './clone-codec';
import { ROOT } from './browser';

/** The built renderer's index, as main's `loadFile` opens it. */
export const RENDERER_INDEX = join(ROOT, 'out', 'renderer', 'index.html');
/** The built preload, as main hands it to `mainWindowOptions`. */
export const PRELOAD_FILE = join(ROOT, 'out', 'preload', 'index.cjs');
/** The name of the relay binding in the page (the preload's stand-in calls it; nothing else does). */
const RELAY_BINDING = '__gfElectronRelay';

/**
 * Chromium counterpart of how Electron treats the app's own file:// pages: a
 * plain Chromium blocks the built index's `<script type="module" crossorigin>`
 * and stylesheet from file:// (origin "null"); Electron loads them. This flag
 * is the only difference from the browser pass's Chromium.
 */
export const ELECTRON_FILE_ARGS = ['--allow-file-access-from-files'] as const;

type Listener = (event: InvokeEventLike, ...args: unknown[]) => Promise<Envelope>;

/** An `ipcMain` that keeps the handlers, refusing a second one per channel as Electron does. */
export class RecordingIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}

/** The window main attaches its dialogs to (the stand-in has one window, as main has). */
export const SHELL_WINDOW = Object.freeze({ id: 1 });

/** What Electron's `dialog.showOpenDialog` answers. */
export interface OpenDialogAnswer {
  readonly canceled: boolean;
  readonly filePaths: readonly string[];
}

/** A stand-in of Electron's `dialog`: records what main asks and answers what the test set. */
export class RecordingDialog implements OpenDialogLike<typeof SHELL_WINDOW> {
  /** What the next dialogs answer (the person cancelling, until a test chooses a folder). */
  answer: OpenDialogAnswer = { canceled: true, filePaths: [] };
  readonly calls: { readonly window: unknown; readonly options: unknown }[] = [];
  async showOpenDialog(window: typeof SHELL_WINDOW, options: unknown): Promise<OpenDialogAnswer> {
    this.calls.push({ window, options: structuredClone(options) });
    return this.answer;
  }
}

/** One call on its way through the relay (what an interceptor sees). */
export interface RelayCall {
  readonly channel: string;
  /** The structured clone of the page's arguments, as main receives them. */
  readonly args: readonly unknown[];
  readonly senderUrl: string;
}

/**
 * Test-side instrumentation of one page's calls (the IPC counterpart of
 * `page.route`): `next()` hands the call to main and returns its answer;
 * throwing rejects the page's invoke as a lost reply would.
 */
export type RelayInterceptor = (call: RelayCall, next: () => Promise<unknown>) => Promise<unknown>;

/** The Electron-shaped app for one workspace. */
export interface IpcShell {
  /** The file:// URL of the built index (what `loadFile` opens; the trusted sender). */
  readonly indexUrl: string;
  readonly trusted: RendererLocation;
  /** The main-side facade (mode `electron`, launched on the workspace as `--project` does). */
  readonly facade: Facade;
  readonly ipc: RecordingIpcMain;
  /** Electron's `dialog` as main's folder dialog calls it. */
  readonly dialog: RecordingDialog;
  /** Installs the preload (the built one unless a test gives its own source) and the relay in a context, before its first page. */
  attach(context: BrowserContext, preloadSource?: string): Promise<void>;
  /** Adds an interceptor for one page's calls; returns its removal. */
  intercept(page: Page, interceptor: RelayInterceptor): () => void;
  close(): Promise<void>;
}

let codecSource: string | undefined;

/** The clone codec bundled for the page (an IIFE defining `__gfCloneCodec`). */
function pageCodec(): string {
  codecSource ??= buildSync({
    entryPoints: [join(import.meta.dirname, 'clone-codec.ts')],
    bundle: true,
    format: 'iife',
    globalName: '__gfCloneCodec',
    write: false,
    target: 'es2022',
  }).outputFiles[0]!.text;
  return codecSource;
}

/**
 * The page side: the two stand-ins, then the real preload bundle (CommonJS,
 * as Electron's sandboxed preload loader runs it: `require('electron')` only).
 */
export function preloadInitScript(preloadSource: string): string {
  return `(() => {
  if (window.top !== window) return; // Electron runs the preload in the main frame only (nodeIntegrationInSubFrames: false)
  ${pageCodec()}
  const codec = __gfCloneCodec;
  const relay = globalThis[${JSON.stringify(RELAY_BINDING)}];
  try { delete globalThis[${JSON.stringify(RELAY_BINDING)}]; } catch {}
  const contextBridge = Object.freeze({
    exposeInMainWorld(key, api) {
      if (Object.prototype.hasOwnProperty.call(globalThis, key)) throw new Error('Cannot bind an API on top of an existing property on the window object');
      Object.defineProperty(globalThis, key, { value: Object.freeze({ ...api }), enumerable: true, writable: false, configurable: false });
    },
  });
  const ipcRenderer = Object.freeze({
    async invoke(channel, ...args) {
      const carried = codec.encodeClone(structuredClone(args));
      const [kind, answer] = await relay(channel, carried);
      if (kind === 'threw') throw new Error(answer);
      return codec.decodeClone(answer);
    },
  });
  const electron = Object.freeze({ contextBridge, ipcRenderer });
  const module = { exports: {} };
  const require = (name) => {
    if (name === 'electron') return electron;
    throw new Error("module not found: " + name + " (a sandboxed preload can require only 'electron')");
  };
  (function (require, module, exports) {
${preloadSource}
  })(require, module, module.exports);
})();`;
}

/** Starts the main side on `projectDir` (as `--project` does) and prepares the relay; `env` adds to the test's environment (e.g. `GF_CONFIG_DIR`). */
export async function startIpcShell(projectDir: string, env: Readonly<Record<string, string>> = {}): Promise<IpcShell> {
  const indexUrl = pathToFileURL(RENDERER_INDEX).href;
  const trusted = rendererLocation(undefined, indexUrl);
  const dialog = new RecordingDialog();
  const launch = readLaunchConfig({ project: projectDir }, { ...process.env, ...env });
  const facade = createFacade(launchFacadeOptions(launch, 'electron', { chooseFolder: folderDialog(dialog, () => SHELL_WINDOW) }));
  const ipc = new RecordingIpcMain();
  const interceptors = new Map<Page, RelayInterceptor[]>();
  let unregister: (() => void) | undefined;
  try {
    await facade.launch(projectDir);
    unregister = installIpcHandlers(ipc, facade.dispatcher, (url) => isTrustedSenderUrl(url, trusted));
  } catch (e) {
    await facade.close();
    throw e;
  }

  const relay = async (page: Page, senderUrl: string, channel: string, carried: Carried): Promise<readonly ['ok', Carried] | readonly ['threw', string]> => {
    try {
      const args = decodeClone(carried) as unknown[];
      const call: RelayCall = { channel, args, senderUrl };
      const toMain = async (): Promise<unknown> => {
        const handler = ipc.handlers.get(channel);
        if (handler === undefined) throw new Error(`No handler registered for '${channel}'`);
        return handler({ senderFrame: { url: senderUrl } }, ...args);
      };
      // The interceptors present when the call was made (one added or removed meanwhile does not shift the others).
      const chain = [...(interceptors.get(page) ?? [])];
      const run = (i: number): Promise<unknown> => (i < chain.length ? chain[i]!(call, () => run(i + 1)) : toMain());
      const result = await run(0);
      return ['ok', encodeClone(structuredClone(result))];
    } catch (e) {
      return ['threw', `Error invoking remote method '${channel}': ${String(e)}`];
    }
  };

  return {
    indexUrl,
    trusted,
    facade,
    ipc,
    dialog,
    async attach(context, preloadSource) {
      await context.exposeBinding(RELAY_BINDING, (source, channel: string, carried: Carried) => relay(source.page, source.frame.url(), channel, carried));
      await context.addInitScript({ content: preloadInitScript(preloadSource ?? readFileSync(PRELOAD_FILE, 'utf8')) });
    },
    intercept(page, interceptor) {
      const list = interceptors.get(page) ?? [];
      list.push(interceptor);
      interceptors.set(page, list);
      return () => {
        const i = list.indexOf(interceptor);
        if (i >= 0) list.splice(i, 1);
      };
    },
    async close() {
      unregister?.();
      await facade.close();
    },
  };
}
