// One error model for every surface: the closed `GF_*` codes plus the chain
// store's dotted ids, as one union, and the rebuilding of a wire error on the
// receiving side with its code and details intact. Browser-safe.
import { GF_CODES, GfError, isGfCode, type GfCode, type GfDetails, type WireError } from '../errors';

export type { GfCode, GfDetails, WireError } from '../errors';
/** The engine's error class, as clients rebuild it (re-exported so browser code imports only core/contract). */
export { GfError, isGfError } from '../errors';

/**
 * The closed set of chain-store error ids (CHAIN.md).
 *
 * The chain store keeps the seed's dotted ids instead of `GF_*` codes: they
 * are part of the ledger contract shared with other implementations.
 */
export const CHAIN_ERROR_IDS = [
  'workflows.checkpoint_payload_too_large',
  'workflows.checkpoint_boundary_violation',
  'workflows.illegal_transition',
  'workflows.invalid_transition_event',
  'workflows.invalid_workflow_id',
  'workflows.checkpoint_store_corrupt',
  'workflows.checkpoint_store_closed',
  'workflows.checkpoint_chain_mismatch',
  'workflows.checkpoint_torn_write',
  'workflows.checkpoint_head_unexpected',
  'workflows.workflow_not_found',
  'workflows.duplicate_transition_id',
] as const;

/** One chain-store error id. */
export type ChainErrorId = (typeof CHAIN_ERROR_IDS)[number];

/** Every error code an operation can fail with: a `GF_*` code or a chain error id. */
export type ErrorCode = GfCode | ChainErrorId;

/** Every error code, `GF_*` first. */
export const ERROR_CODES: readonly ErrorCode[] = [...GF_CODES, ...CHAIN_ERROR_IDS];

const CHAIN_ID_SET: ReadonlySet<string> = new Set(CHAIN_ERROR_IDS);

/** True when `value` is a chain error id. */
export function isChainErrorId(value: unknown): value is ChainErrorId {
  return typeof value === 'string' && CHAIN_ID_SET.has(value);
}

/** True when `value` is any operation error code. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return isGfCode(value) || isChainErrorId(value);
}

/**
 * A chain-store failure rebuilt on the receiving side of a boundary.
 *
 * Carries `code` (the chain id) like every operation error, and `errorId`
 * like the engine's `ChainError`, so both kinds of check keep working.
 */
export class ChainFailure extends Error {
  readonly code: ChainErrorId;
  readonly errorId: ChainErrorId;
  readonly committed: boolean | undefined;
  readonly details: GfDetails;

  constructor(code: ChainErrorId, message: string, details: GfDetails, committed?: boolean) {
    super(message.startsWith(`${code}: `) ? message : `${code}: ${message}`);
    this.name = 'ChainFailure';
    this.code = code;
    this.errorId = code;
    this.details = details;
    this.committed = committed;
  }
}

/** What an operation call can throw on the client side: one code, `committed` on writes, safe details. */
export type OperationError = GfError | ChainFailure;

/**
 * Rebuilds the typed error of a wire error.
 *
 * `GF_*` codes become a `GfError`, chain ids a `ChainFailure`, both with their
 * details and `committed`. A code outside the union (a newer peer) becomes
 * `GF_PROTOCOL` naming the code; never `GF_IO`, which means a file could not
 * be read or written.
 */
export function fromWireError(w: WireError): OperationError {
  const committed = w.committed ?? undefined;
  if (isChainErrorId(w.code)) return new ChainFailure(w.code, w.message, w.details, committed);
  if (isGfCode(w.code)) {
    const message = w.message.startsWith(`${w.code}: `) ? w.message.slice(w.code.length + 2) : w.message;
    return new GfError(w.code, message, w.details, committed);
  }
  return new GfError('GF_PROTOCOL', 'the server answered with an error this version does not know', { ...w.details, wire_code: w.code.slice(0, 64) }, committed);
}

/**
 * The typed error of a call that never reached the server (fetch rejected: the server stopped, the network is down).
 *
 * `GF_SERVER_UNREACHABLE`, "Lost connection to the Checkpoint Studio server";
 * for a write, whether it committed is unknown to the client, so `committed`
 * stays unset and the UI says to check History before retrying.
 */
export function serverUnreachable(): GfError {
  return new GfError('GF_SERVER_UNREACHABLE', 'Lost connection to the Checkpoint Studio server', {});
}

/** The code of any thrown value, when it carries one of the union's codes (structural: works across bundles). */
export function errorCodeOf(e: unknown): ErrorCode | null {
  const code = (e as { code?: unknown } | null)?.code;
  return isErrorCode(code) ? code : null;
}
