// A recording stand-in of the `electron` module for running the BUILT main
// (out/main/index.js) under Node. It records what main asks of Electron, in
// order, and answers the test process over the child's IPC channel
// (structured clone, `serialization: 'advanced'`):
//   { type: 'facts', probes }  -> what main set up, with its listeners and handlers called on the probes;
//   { type: 'invoke', channel, url, args } -> the answer of the handler main registered for `channel`;
//   { type: 'dialog', answer } -> what `dialog.showOpenDialog` answers from now on (cancelled until set);
//   { type: 'quit' }           -> runs main's will-quit listeners, reports the handlers left, disconnects.
// It sends { type: 'loaded' } once main loaded its window. It decides nothing itself.
import { setImmediate } from 'node:timers';

const calls = [];
const appListeners = new Map();
const handlers = new Map();
const windows = [];
const sessionState = { permissionRequest: null, permissionCheck: null, beforeRequest: null, headersReceived: null };
let ready = false;
let resolveReady;
const readyPromise = new Promise((r) => (resolveReady = r));

function record(name, detail) {
  calls.push(detail === undefined ? [name, ready] : [name, ready, detail]);
}

export const app = {
  isPackaged: false,
  enableSandbox() {
    record('app.enableSandbox');
  },
  on(event, listener) {
    record('app.on', event);
    const list = appListeners.get(event) ?? [];
    list.push(listener);
    appListeners.set(event, list);
    return app;
  },
  whenReady() {
    record('app.whenReady');
    return readyPromise;
  },
  getAppPath() {
    return process.cwd();
  },
  quit() {
    record('app.quit');
  },
  exit(code) {
    record('app.exit', code);
    process.exitCode = code;
    process.disconnect?.();
  },
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler(handler) {
      record('session.setPermissionRequestHandler');
      sessionState.permissionRequest = handler;
    },
    setPermissionCheckHandler(handler) {
      record('session.setPermissionCheckHandler');
      sessionState.permissionCheck = handler;
    },
    webRequest: {
      onBeforeRequest(listener) {
        record('webRequest.onBeforeRequest');
        sessionState.beforeRequest = listener;
      },
      onHeadersReceived(listener) {
        record('webRequest.onHeadersReceived');
        sessionState.headersReceived = listener;
      },
    },
  },
};

export const ipcMain = {
  handle(channel, listener) {
    if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    handlers.set(channel, listener);
  },
  removeHandler(channel) {
    handlers.delete(channel);
  },
};

export class BrowserWindow {
  constructor(options) {
    record('new BrowserWindow');
    this.state = { options, loadFile: [], loadURL: [], once: [], shown: false };
    windows.push(this.state);
  }
  once(event) {
    this.state.once.push(event);
    return this;
  }
  on(event) {
    this.state.once.push(event);
    return this;
  }
  show() {
    this.state.shown = true;
  }
  async loadFile(path) {
    record('win.loadFile', path);
    this.state.loadFile.push(path);
    process.send?.({ type: 'loaded' });
  }
  async loadURL(url) {
    record('win.loadURL', url);
    this.state.loadURL.push(url);
    process.send?.({ type: 'loaded' });
  }
  static getAllWindows() {
    return windows;
  }
}

let dialogAnswer = { canceled: true, filePaths: [] };

export const dialog = {
  async showOpenDialog(win, options) {
    record('dialog.showOpenDialog', { window: windows.indexOf(win?.state), options });
    return dialogAnswer;
  },
};

export const contextBridge = {};
export const ipcRenderer = {};

/** A web contents that records what main's guard installs on it. */
function probeContents() {
  const events = [];
  let openHandler = null;
  const contents = {
    on(event, listener) {
      events.push([event, listener]);
      return contents;
    },
    setWindowOpenHandler(handler) {
      openHandler = handler;
    },
  };
  for (const listener of appListeners.get('web-contents-created') ?? []) listener({}, contents);
  const prevented = events.map(([event, listener]) => {
    let stopped = false;
    listener({ preventDefault: () => void (stopped = true) }, 'https://example.com/');
    return [event, stopped];
  });
  return { prevented, windowOpen: openHandler === null ? null : openHandler({ url: 'https://example.com/' }) };
}

function facts(probes) {
  // Each permission asked by each probe page (Electron passes the requesting frame's URL in the details).
  const permissionRequest = probes.permissionPages.map((url) =>
    probes.permissions.map((p) => {
      let granted = 'no answer';
      sessionState.permissionRequest?.({}, p, (g) => void (granted = g), { requestingUrl: url });
      return granted;
    }),
  );
  const permissionCheck = probes.permissionPages.map((url) => probes.permissions.map((p) => sessionState.permissionCheck?.({}, p, 'file://', { requestingUrl: url }) ?? 'no handler'));
  const beforeRequest = probes.urls.map((url) => {
    let answer = 'no answer';
    sessionState.beforeRequest?.({ url }, (a) => void (answer = a));
    return answer;
  });
  let headers = 'no listener';
  sessionState.headersReceived?.({ responseHeaders: probes.headers }, (a) => void (headers = a));
  return {
    calls,
    channels: [...handlers.keys()],
    windows: windows.map((w) => ({ options: w.options, loadFile: w.loadFile, loadURL: w.loadURL, once: w.once })),
    permissionRequest,
    permissionCheck,
    beforeRequest,
    headers,
    contents: probeContents(),
    appEvents: [...appListeners.keys()],
  };
}

process.on('message', (m) => {
  void (async () => {
    if (m.type === 'facts') process.send({ type: 'facts', facts: facts(m.probes) });
    else if (m.type === 'invoke') {
      const handler = handlers.get(m.channel);
      const answer = handler === undefined ? { missing: m.channel } : await handler({ senderFrame: { url: m.url } }, ...m.args);
      process.send({ type: 'answer', id: m.id, answer });
    } else if (m.type === 'dialog') {
      dialogAnswer = m.answer;
      process.send({ type: 'dialog' });
    } else if (m.type === 'quit') {
      for (const listener of appListeners.get('will-quit') ?? []) listener({ preventDefault() {} });
      process.send({ type: 'quit', handlersLeft: handlers.size }, () => process.disconnect());
    }
  })();
});

// Electron emits `ready` after the main script's first run; so does the stand-in.
setImmediate(() => {
  ready = true;
  resolveReady();
});
