// The one dispatcher behind every transport: Electron IPC, the HTTP bridge and
// in-process callers (CLI, parity tests). Validates, then calls the facade.
import { GfError, toWireError } from '../errors';
import { OPERATIONS, OPERATION_NAMES, isOperationName, unknownOperation, type OperationName, type OperationRequest, type OperationResult } from '../contract/operations';
import { errorEnvelope, okEnvelope, type Envelope } from '../contract/wire';

/** One operation's implementation: gets the validated request. */
export type OperationImpl<N extends OperationName> = (request: OperationRequest<N>) => Promise<OperationResult<N>>;

/**
 * One implementation for every operation the contract declares: a total
 * mapped type, so dropping an operation fails the build instead of hiding it.
 */
export type Implementations = { readonly [N in OperationName]: OperationImpl<N> };

/** Some operations' implementations (one engine module's share of the facade). */
export type PartialImplementations = Partial<Implementations>;

/** Keys that can never appear anywhere in a request (prototype pollution). */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 8;

function hasForbiddenKey(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > MAX_DEPTH) return true;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return true;
    if (hasForbiddenKey((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Validates a request against the contract.
 *
 * Rejects non-objects, forbidden keys at any depth, extra keys, wrong types,
 * oversized or path-like text with `GF_VALIDATION`. Details name only the
 * operation and the declared fields at fault (never caller values or keys).
 * A write operation's refusal carries `committed: false` (ADR-0014: every
 * write error says whether it committed).
 */
export function validateRequest<N extends OperationName>(op: N, payload: unknown): OperationRequest<N> {
  // A write refused here never started: it says so (`committed: false`); reads carry no `committed`.
  const committed = OPERATIONS[op].writes ? false : undefined;
  if (!isPlainRecord(payload) || hasForbiddenKey(payload, 0)) {
    throw new GfError('GF_VALIDATION', 'request must be a plain object without reserved keys', { operation: op }, committed);
  }
  const parsed = OPERATIONS[op].request.safeParse(payload);
  if (!parsed.success) {
    const schema = OPERATIONS[op].request as unknown as { shape?: Record<string, unknown> };
    const declared = new Set(Object.keys(schema.shape ?? {}));
    const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')).filter((k) => declared.has(k)))].sort();
    const extra = parsed.error.issues.some((i) => i.code === 'unrecognized_keys');
    if (!extra && fields.length === 1 && fields[0] === 'after') {
      // A page token that cannot be one is a bad page, as the engine itself says for tokens it rejects.
      throw new GfError('GF_PAGE_INVALID', 'the page token is not valid', { operation: op }, committed);
    }
    throw new GfError('GF_VALIDATION', 'request does not match the operation contract', {
      operation: op,
      fields,
      unexpected_keys: extra,
    }, committed);
  }
  return parsed.data as OperationRequest<N>;
}

/** A dispatcher: the same call for every transport. */
export interface Dispatcher {
  /** Names this process can run (declared in the contract and implemented). */
  readonly available: readonly OperationName[];
  /** Validates and runs one call; never throws: failures come back as envelopes. */
  dispatch(op: string, payload: unknown): Promise<Envelope>;
}

/** Builds the dispatcher over a facade's implementations. */
export function createDispatcher(implementations: PartialImplementations): Dispatcher {
  const available = OPERATION_NAMES.filter((n) => implementations[n] !== undefined);
  const availableSet: ReadonlySet<string> = new Set(available);
  return {
    available,
    async dispatch(op, payload) {
      try {
        if (!isOperationName(op) || !availableSet.has(op)) {
          throw unknownOperation();
        }
        const request = validateRequest(op, payload);
        const impl = implementations[op] as OperationImpl<typeof op>;
        return okEnvelope(await impl(request));
      } catch (e) {
        return errorEnvelope(toWireError(e));
      }
    },
  };
}
