// The Electron shell's security configuration, importable WITHOUT the Electron
// binary (type-only electron imports) so tests check exactly what main uses.
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../../core/api/security';

export { CONTENT_SECURITY_POLICY } from '../../core/api/security';

/**
 * Web preferences of every app window.
 *
 * Context isolation and the sandbox keep Node out of the renderer; the only
 * bridge is the preload's `invoke`. Nothing here may be relaxed for
 * convenience (GitHub Desktop's `contextIsolation: false` is the example not
 * to follow).
 */
export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
} as const satisfies WebPreferences;

/** The main window's options (the preload path is the only variable). */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    show: false,
    title: 'Checkpoint Studio',
    backgroundColor: '#ffffff',
    webPreferences: { ...WEB_PREFERENCES, preload: preloadPath },
  };
}

/** Where the trusted renderer lives: the built `index.html` (file://) or the dev server. */
export type RendererLocation =
  | { readonly kind: 'file'; readonly indexUrl: string }
  | { readonly kind: 'dev'; readonly origin: string };

/** Builds the trusted location from the dev-server URL (if any) or the built index file URL. */
export function rendererLocation(devServerUrl: string | undefined, indexFileUrl: string): RendererLocation {
  if (devServerUrl !== undefined && devServerUrl !== '') {
    const u = new URL(devServerUrl);
    if ((u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '127.0.0.1'))) return { kind: 'dev', origin: u.origin };
  }
  return { kind: 'file', indexUrl: indexFileUrl };
}

/**
 * True when a sender frame's URL is the app's own renderer.
 *
 * file://: exactly the built index document (query and fragment ignored);
 * dev: exactly the dev server's origin. Anything else (another file, a
 * remote page, `about:blank`, a null frame) is untrusted.
 */
export function isTrustedSenderUrl(url: string | null | undefined, trusted: RendererLocation): boolean {
  if (typeof url !== 'string' || url === '') return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (trusted.kind === 'dev') return u.origin === trusted.origin;
  const t = new URL(trusted.indexUrl);
  return u.protocol === 'file:' && t.protocol === 'file:' && u.host === t.host && u.pathname === t.pathname;
}

/** `will-navigate` / `will-redirect` / `will-attach-webview` listener: the app never navigates. */
export function denyNavigation(event: { preventDefault(): void }): void {
  event.preventDefault();
}

/** `setWindowOpenHandler`: no new windows, no external opening. */
export function denyWindowOpen(): { action: 'deny' } {
  return { action: 'deny' };
}

/**
 * The one permission the app grants: writing sanitized text to the clipboard ("Copy JSON", copy
 * buttons), and only to its own page (the built index, or the dev server). Chromium asks for it
 * before `navigator.clipboard.writeText`; everything else is refused.
 */
const GRANTED_TO_THE_APP: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/** The subset of a permission request's or check's details the handlers read. */
export interface PermissionDetails {
  readonly requestingUrl?: string;
}

/** `session.setPermissionRequestHandler`: refuses every request, but the sanitized clipboard write of the app's own page. */
export function permissionRequestHandler(trusted: RendererLocation): (contents: unknown, permission: string, callback: (granted: boolean) => void, details?: PermissionDetails) => void {
  return (_contents, permission, callback, details) => callback(GRANTED_TO_THE_APP.has(permission) && isTrustedSenderUrl(details?.requestingUrl, trusted));
}

/** `session.setPermissionCheckHandler`: answers no to every check, but the sanitized clipboard write of the app's own page. */
export function permissionCheckHandler(trusted: RendererLocation): (contents: unknown, permission: string, requestingOrigin: string, details?: PermissionDetails) => boolean {
  return (_contents, permission, _origin, details) => GRANTED_TO_THE_APP.has(permission) && isTrustedSenderUrl(details?.requestingUrl, trusted);
}

/** The subset of `onHeadersReceived` details the CSP listener uses. */
export interface HeadersDetails {
  readonly responseHeaders?: Record<string, string[] | string>;
}

/**
 * `session.webRequest.onHeadersReceived` listener: forces the strict CSP on
 * every response (replacing any policy a response brought itself).
 */
export function cspHeadersListener(details: HeadersDetails, callback: (response: { responseHeaders: Record<string, string[]> }) => void): void {
  const headers: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(details.responseHeaders ?? {})) {
    if (k.toLowerCase() === 'content-security-policy') continue;
    headers[k] = Array.isArray(v) ? v : [v];
  }
  headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  callback({ responseHeaders: headers });
}

/**
 * Only the app's own content loads: file:// of the built renderer, the dev
 * server, `devtools:` and nothing remote.
 */
export function isAllowedRequestUrl(url: string, trusted: RendererLocation): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'devtools:' || u.protocol === 'data:' || u.protocol === 'blob:') return true;
  if (trusted.kind === 'dev') return u.origin === trusted.origin || (u.protocol === 'ws:' && u.host === new URL(trusted.origin).host);
  if (u.protocol !== 'file:') return false;
  const dir = new URL('.', trusted.indexUrl).pathname;
  return u.pathname.startsWith(dir);
}

/**
 * The one line main prints when the workspace it was launched on cannot be
 * opened (`--project DIR` or `GF_PROJECT`): the engine's code first, its
 * sentence, then the folder, as `npm start` words it. No stack trace.
 */
export function launchFailureLine(e: unknown, directory: string): string {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message.replace(/^GF_[A-Z_]+: /, '') : String(e);
  return `Checkpoint Studio: ${typeof code === 'string' ? `${code}: ` : ''}${message} (${directory})`;
}
