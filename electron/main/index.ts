// Electron main: one hardened window, contract handlers, nothing remote.
import { app, BrowserWindow, dialog, session, type WebContents } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createFacade } from '../../core/api/facade';
import { desktopLaunchConfig, launchFacadeOptions } from '../../core/api/launch-config';
import { registerContractHandlers } from '../ipc/electron-ipc';
import {
  cspHeadersListener,
  denyNavigation,
  denyWindowOpen,
  isAllowedRequestUrl,
  isTrustedSenderUrl,
  launchFailureLine,
  mainWindowOptions,
  permissionCheckHandler,
  permissionRequestHandler,
  rendererLocation,
} from './config';
import { folderDialog } from './folder-dialog';
import { electronNativeBindingPath } from './native';

const here = dirname(fileURLToPath(import.meta.url));
const indexFile = join(here, '../renderer/index.html');
const preloadFile = join(here, '../preload/index.cjs');
const trusted = rendererLocation(app.isPackaged ? undefined : process.env['ELECTRON_RENDERER_URL'], pathToFileURL(indexFile).href);

function guardContents(contents: WebContents): void {
  contents.on('will-navigate', denyNavigation);
  contents.on('will-redirect', denyNavigation);
  contents.on('will-attach-webview', denyNavigation);
  contents.setWindowOpenHandler(denyWindowOpen);
}

app.enableSandbox();
app.on('web-contents-created', (_e, contents) => guardContents(contents));
app.on('window-all-closed', () => app.quit());

void app.whenReady().then(async () => {
  const native = electronNativeBindingPath(app.getAppPath());
  if (native !== null) process.env['GF_SQLITE_NATIVE_BINDING'] = native;

  const ses = session.defaultSession;
  ses.setPermissionRequestHandler(permissionRequestHandler(trusted));
  ses.setPermissionCheckHandler(permissionCheckHandler(trusted));
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequestUrl(details.url, trusted) }));
  ses.webRequest.onHeadersReceived(cspHeadersListener);

  // "Open workspace…": Electron's folder dialog, modal to the app's window (created below).
  let win: BrowserWindow | null = null;
  const launch = desktopLaunchConfig(process.argv, process.env);
  const facade = createFacade(launchFacadeOptions(launch, 'electron', { chooseFolder: folderDialog(dialog, () => win) }));
  if (launch.project !== null) {
    const directory = launch.project;
    try {
      await facade.launch(directory);
    } catch (e) {
      // A workspace that cannot be opened stops the launch in one line with its code (as `npm start` does).
      process.stderr.write(`${launchFailureLine(e, directory)}\n`);
      await facade.close();
      app.exit(1);
      return;
    }
  }
  const unregister = registerContractHandlers(facade.dispatcher, (url) => isTrustedSenderUrl(url, trusted));
  app.on('will-quit', () => {
    unregister();
    void facade.close();
  });

  const window = new BrowserWindow(mainWindowOptions(preloadFile));
  win = window;
  window.once('ready-to-show', () => window.show());
  if (trusted.kind === 'dev') await window.loadURL(trusted.origin);
  else await window.loadFile(indexFile);
});
