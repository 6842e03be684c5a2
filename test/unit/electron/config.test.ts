// The Electron shell's configuration, checked without the Electron binary.
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  WEB_PREFERENCES,
  cspHeadersListener,
  denyNavigation,
  permissionCheckHandler,
  permissionRequestHandler,
  denyWindowOpen,
  isAllowedRequestUrl,
  isTrustedSenderUrl,
  mainWindowOptions,
  rendererLocation,
} from '../../../electron/main/config';
import { META_CONTENT_SECURITY_POLICY } from '../../../core/api/security';

const INDEX = 'file:///opt/app/out/renderer/index.html';
const fileLoc = rendererLocation(undefined, INDEX);

describe('window options', () => {
  it('isolates the renderer: context isolation, sandbox, no Node, web security on, no webview', () => {
    const o = mainWindowOptions('/opt/app/out/preload/index.cjs');
    expect(o.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      preload: '/opt/app/out/preload/index.cjs',
    });
    expect(Object.isFrozen(WEB_PREFERENCES) || WEB_PREFERENCES.sandbox === true).toBe(true);
  });
});

describe('content security policy', () => {
  const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));

  it('allows nothing inline, nothing evaluated and nothing remote', () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(eval|inline|hashes)|wasm-unsafe-eval|\*|https?:/);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('the meta-tag form is the same policy minus frame-ancestors (ignored in meta tags)', () => {
    expect(META_CONTENT_SECURITY_POLICY).toBe(CONTENT_SECURITY_POLICY.replace("; frame-ancestors 'none'", ''));
  });

  it('the session header listener replaces any policy a response brought', () => {
    let out: Record<string, string[]> = {};
    cspHeadersListener({ responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': 'v' } }, (r) => (out = r.responseHeaders));
    expect(out['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    expect(out['content-security-policy']).toBeUndefined();
    expect(out['X-Other']).toEqual(['v']);
  });
});

describe('navigation, windows and permissions', () => {
  it('denies every navigation and every new window', () => {
    let prevented = 0;
    for (let i = 0; i < 3; i++) denyNavigation({ preventDefault: () => void prevented++ });
    expect(prevented).toBe(3);
    expect(denyWindowOpen()).toEqual({ action: 'deny' });
  });

  it('denies every permission request and check but the sanitized clipboard write of the app\'s own page', () => {
    const request = permissionRequestHandler(fileLoc);
    const check = permissionCheckHandler(fileLoc);
    const ask = (p: string, url: string | undefined): boolean => {
      let granted: boolean | undefined;
      request(null, p, (g) => void (granted = g), url === undefined ? undefined : { requestingUrl: url });
      return granted ?? false;
    };
    const others = ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen'];
    expect(others.map((p) => [ask(p, INDEX), check(null, p, 'file://', { requestingUrl: INDEX })])).toEqual(others.map(() => [false, false]));
    expect([ask('clipboard-sanitized-write', INDEX), check(null, 'clipboard-sanitized-write', 'file://', { requestingUrl: INDEX })]).toEqual([true, true]);
    // Another page (a file beside the app, a remote page) or no URL at all: refused.
    for (const url of ['file:///etc/passwd', 'https://example.com/', undefined]) {
      expect([ask('clipboard-sanitized-write', url), check(null, 'clipboard-sanitized-write', 'file://', url === undefined ? undefined : { requestingUrl: url })]).toEqual([false, false]);
    }
  });

  it('loads only the built renderer files (no remote content)', () => {
    expect(isAllowedRequestUrl('file:///opt/app/out/renderer/assets/index-x.js', fileLoc)).toBe(true);
    expect(isAllowedRequestUrl('devtools://devtools/bundled/x.js', fileLoc)).toBe(true);
    for (const u of ['https://cdn.example/x.js', 'http://127.0.0.1:9/x', 'file:///etc/passwd', 'file:///opt/app/out/main/index.js', 'ws://evil/']) {
      expect(isAllowedRequestUrl(u, fileLoc), u).toBe(false);
    }
  });
});

describe('sender trust', () => {
  it('trusts exactly the built index document', () => {
    expect(isTrustedSenderUrl(INDEX, fileLoc)).toBe(true);
    expect(isTrustedSenderUrl(`${INDEX}#/checkpoints`, fileLoc)).toBe(true);
    for (const u of ['file:///opt/app/out/renderer/other.html', 'file:///tmp/index.html', 'https://evil.example/', 'about:blank', '', null, undefined, 'not a url']) {
      expect(isTrustedSenderUrl(u, fileLoc), String(u)).toBe(false);
    }
  });

  it('in development trusts only the loopback dev server origin', () => {
    const dev = rendererLocation('http://localhost:5173/', INDEX);
    expect(dev).toEqual({ kind: 'dev', origin: 'http://localhost:5173' });
    expect(isTrustedSenderUrl('http://localhost:5173/index.html', dev)).toBe(true);
    expect(isTrustedSenderUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isTrustedSenderUrl(INDEX, dev)).toBe(false);
    // A non-loopback "dev server" is never trusted: the built file is used instead.
    expect(rendererLocation('http://evil.example:5173/', INDEX)).toEqual(fileLoc);
  });
});
