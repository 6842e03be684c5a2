/**
 * The closed set of engine error codes.
 *
 * Codes are the stable contract: callers (CLI exit paths, IPC, the browser
 * bridge, tests) branch on `code`, never on `instanceof` or message text,
 * because errors cross bundles and process boundaries as plain values.
 */
export const GF_CODES = [
  'GF_CANONICAL_ARROW_TYPE',
  'GF_CANONICAL_ENCODING',
  'GF_CANONICAL_LIMIT',
  'GF_CANONICAL_NULLABILITY',
  'GF_CANONICAL_TEMPORAL',
  'GF_CANONICAL_UTF8',
  'GF_CANONICAL_DOMAIN',
  'GF_CANCELLED',
  'GF_CHECKPOINT_EXISTS',
  'GF_CHECKPOINT_NOT_FOUND',
  'GF_CHECKPOINT_REGISTRY_CORRUPT',
  'GF_IDEMPOTENCY_CONFLICT',
  'GF_IO',
  'GF_PAGE_INVALID',
  'GF_PAGE_SNAPSHOT_GONE',
  'GF_PROJECT_CORRUPT',
  'GF_PROJECT_UNINITIALIZED',
  'GF_READ_ONLY_VIEW',
  'GF_RESOURCE_LIMIT',
  'GF_SCHEMA_MISMATCH',
  'GF_TRANSACTION_FAILED',
  'GF_UNSUPPORTED_PROJECT_FORMAT',
  'GF_VALIDATION',
  'GF_WRITER_BUSY',
  'GF_CHAIN_STORE',
  // Causes a person can act on, each its own code (never GF_IO unless a file failed).
  /** The path is missing, an empty folder or a file: no FORMAT file, so no workspace (never "unsupported format"). */
  'GF_NO_WORKSPACE',
  /**
   * A write whose precondition no longer holds: the revert preview was computed
   * against another CURRENT, or the thread restore against another head. Nothing
   * was written; preview again and confirm.
   */
  'GF_STALE_PREVIEW',
  /** A database server (the PostgreSQL chain store) refused or did not answer the connection; details name host and port only. */
  'GF_STORE_UNREACHABLE',
  /** Client side: the Checkpoint Studio server (the bridge) could not be reached. */
  'GF_SERVER_UNREACHABLE',
  /** Client side: the bridge refused the session (no or expired cookie/token). */
  'GF_SESSION_EXPIRED',
  /** Client side: the peer answered with something this version cannot read (an unknown code, a non-envelope body). */
  'GF_PROTOCOL',
  /**
   * A stored LangGraph value this version cannot read: an unknown serializer type, an unknown extension code,
   * bytes or JSON that do not decode. The message names the thread, checkpoint, channel or table row and what was not understood.
   */
  'GF_CHECKPOINT_UNREADABLE',
  /** A defect in the engine (an unexpected exception): never reported as `GF_IO`, whose meaning is a failed file read or write. */
  'GF_INTERNAL',
  /** A desktop-only operation asked of another surface (the folder dialog of `app.choose_workspace` in browser mode: type the path instead). */
  'GF_DESKTOP_ONLY',
] as const;

export type GfCode = (typeof GF_CODES)[number];

/** Safe details: never participant values, reasons, descriptions, credentials or absolute paths. */
export type GfDetails = Readonly<Record<string, string | number | boolean | null | readonly (string | number)[]>>;

const CODE_SET: ReadonlySet<string> = new Set(GF_CODES);

/** True when `value` is one of the closed `GF_*` codes. */
export function isGfCode(value: unknown): value is GfCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * The one engine error.
 *
 * `committed` is present on write errors only: `true` when the write became
 * durable before the failure, `false` when nothing changed. Never unknown.
 */
export class GfError extends Error {
  readonly code: GfCode;
  readonly committed: boolean | undefined;
  readonly details: GfDetails;

  constructor(code: GfCode, message: string, details: GfDetails = {}, committed?: boolean) {
    super(`${code}: ${message}`);
    this.name = 'GfError';
    this.code = code;
    this.details = details;
    this.committed = committed;
  }

  /** A copy of this error marked with the write outcome. */
  withCommitted(committed: boolean): GfError {
    const e = new GfError(this.code, this.message.slice(this.code.length + 2), this.details, committed);
    e.stack = this.stack;
    return e;
  }
}

/** Structural check (works across bundles and IPC): an object carrying a `GF_*` code. */
export function isGfError(e: unknown): e is GfError {
  return typeof e === 'object' && e !== null && isGfCode((e as { code?: unknown }).code) && e instanceof Error;
}

/** True when `e` is a `GF_*` error with exactly this code. */
export function hasCode(e: unknown, code: GfCode): boolean {
  return isGfError(e) && e.code === code;
}

/** The plain value an error becomes when it crosses IPC, HTTP or a CLI boundary. */
export interface WireError {
  readonly code: string;
  readonly committed: boolean | null;
  readonly message: string;
  readonly details: GfDetails;
}

/** Socket errnos: a server that refused or never answered, not a file. */
export const NETWORK_ERRNOS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Turns any thrown value into a wire error; non-engine errors never leak their message.
 *
 * Chain-store errors keep their dotted id as the code (and as the message,
 * which the CLI prints as is) and their (already safe) details; `fromWireError` (core/contract/errors.ts)
 * rebuilds either kind on the receiving side.
 */
export function toWireError(e: unknown): WireError {
  if (isGfError(e)) {
    return { code: e.code, committed: e.committed ?? null, message: e.message, details: e.details };
  }
  const id = (e as { errorId?: unknown } | null)?.errorId;
  if (typeof id === 'string' && e instanceof Error) {
    const details = (e as { details?: unknown }).details;
    const committed = (e as { committed?: unknown }).committed;
    return {
      code: id,
      committed: typeof committed === 'boolean' ? committed : null,
      // The chain errors' messages are built from safe parts only (ids, counts, state kinds, project-relative names).
      message: e.message.startsWith(`${id}: `) ? e.message : id,
      details: typeof details === 'object' && details !== null ? (details as GfDetails) : {},
    };
  }
  // An operating-system error that escaped unwrapped is still an I/O failure (its errno is safe); anything else is a defect.
  const errno = (e as { code?: unknown } | null)?.code;
  if (typeof errno === 'string' && NETWORK_ERRNOS.has(errno)) {
    return { code: 'GF_STORE_UNREACHABLE', committed: null, message: 'GF_STORE_UNREACHABLE: a database server did not accept the connection', details: { errno } };
  }
  if (typeof errno === 'string' && /^E[A-Z0-9]{1,15}$/.test(errno)) {
    return { code: 'GF_IO', committed: null, message: 'GF_IO: a file or device operation failed', details: { errno } };
  }
  return { code: 'GF_INTERNAL', committed: null, message: 'GF_INTERNAL: internal error', details: {} };
}

/** A bug, not a user-facing failure: never a `GF_*` error. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}

/** Exhaustiveness guard for closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}
