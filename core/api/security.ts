// Security constants shared by the Electron shell, the HTTP bridge and the
// renderer build. Browser-safe (no imports).

/**
 * The renderer's Content-Security-Policy.
 *
 * No `unsafe-eval`, no `unsafe-inline`, no remote origin: scripts, styles and
 * fetches come only from the app's own origin (the built renderer's files,
 * or the loopback bridge that serves them).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The same policy for a `<meta http-equiv>` tag.
 *
 * Browsers ignore `frame-ancestors` in meta tags (and warn), so it is dropped
 * here; the header form keeps it.
 */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split('; ')
  .filter((d) => !d.startsWith('frame-ancestors'))
  .join('; ');

/** Headers every bridge response carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};
