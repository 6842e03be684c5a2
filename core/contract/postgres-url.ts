// PostgreSQL connection strings, read once: the scheme rule (postgres:// or
// postgresql://), where a string points (host and port, never who connects),
// and its redacted form for people. Browser-safe (URL, Web Crypto).

const SCHEMES = new Set(['postgres:', 'postgresql:']);
const SECRET_PARAMS = /^(password|sslpassword|sslkey|passfile)$/i;

/** The parsed URL when `url` is a postgres:// or postgresql:// URL; null otherwise (the text is never echoed). */
export function parsePostgresUrl(url: string): URL | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (_e) {
    return null;
  }
  return SCHEMES.has(parsed.protocol) ? parsed : null;
}

/** Where a connection string points: host, port and database (`fallback`'s where it names none); null when it is not a URL. */
export function postgresEndpoint(url: string, fallback: { readonly host: string; readonly port: string }): { readonly host: string; readonly port: string; readonly database: string } | null {
  if (!URL.canParse(url)) return null;
  const u = new URL(url);
  return { host: u.hostname === '' ? fallback.host : u.hostname, port: u.port === '' ? fallback.port : u.port, database: u.pathname.replace(/^\//, '') };
}

/**
 * The connection string with every secret replaced by `[REDACTED]`.
 *
 * Covers the password in the user-info part and secret query parameters
 * (`password`, `sslpassword`, `sslkey`, `passfile`). Text that is not a
 * Postgres URL (or names no host) is redacted whole: it is never echoed.
 */
export function redactConnectionString(url: string): string {
  const parsed = parsePostgresUrl(url);
  if (parsed === null || (parsed.hostname === '' && !parsed.searchParams.has('host'))) return '[REDACTED]';
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
  const mark = `gfredacted${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  if (parsed.password !== '') parsed.password = mark;
  for (const key of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.test(key)) parsed.searchParams.set(key, mark);
  }
  return parsed.toString().split(mark).join('[REDACTED]');
}
