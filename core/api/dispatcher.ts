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

/** A request field's path as people write it (`source.path`, `items[2]`): declared names and indices only. */
function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out;
}

/** Zod's own English (its default messages), as opposed to a sentence the contract's schema gives. */
const ZOD_DEFAULT = /^(Invalid input|Invalid option|Invalid string|Invalid [a-z]+|Too small|Too big|Unrecognized key|Number must|Expected )/;

const KIND_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  bigint: 'an integer',
  null: 'null',
};

/** "1 character", "2 items": the unit of a size bound of `origin`. */
function units(origin: unknown, n: number): string {
  const unit = origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'item' : origin === 'file' ? 'byte' : 'entry';
  return `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`;
}

/**
 * What is wrong with a field's value, never the value itself: the contract's own sentence where the
 * schema gives one (names, reasons, limits, UUIDs), else the rule the schema states (the kind of value,
 * the bound, the pattern, the allowed values), in words.
 */
export function issueWords(issue: { readonly code?: string; readonly message: string } & Record<string, unknown>): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  const bound = issue['minimum'] ?? issue['maximum'];
  const n = typeof bound === 'bigint' ? Number(bound) : typeof bound === 'number' ? bound : undefined;
  const inclusive = issue['inclusive'] !== false;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${KIND_WORDS[String(issue['expected'])] ?? String(issue['expected'])}`;
    case 'too_small':
      if (n === undefined) break;
      if (issue['origin'] === 'number' || issue['origin'] === 'int' || issue['origin'] === 'bigint') return `must be ${inclusive ? 'at least' : 'greater than'} ${n.toLocaleString('en-US')}`;
      if (n === 1 && inclusive) return issue['origin'] === 'string' ? 'must not be empty' : 'must have at least 1 item';
      return `must have ${inclusive ? 'at least' : 'more than'} ${units(issue['origin'], n)}`;
    case 'too_big':
      if (n === undefined) break;
      if (issue['origin'] === 'number' || issue['origin'] === 'int' || issue['origin'] === 'bigint') return `must be ${inclusive ? 'at most' : 'less than'} ${n.toLocaleString('en-US')}`;
      return `must have ${inclusive ? 'at most' : 'fewer than'} ${units(issue['origin'], n)}`;
    case 'invalid_format':
      return issue['format'] === 'regex' ? `is not in the form this field takes (pattern ${String(issue['pattern'])})` : `is not a valid ${String(issue['format'])}`;
    case 'invalid_value': {
      const values = Array.isArray(issue['values']) ? (issue['values'] as unknown[]).map((v) => JSON.stringify(v)) : [];
      return values.length === 1 ? `must be ${values[0] as string}` : `must be one of ${values.join(', ')}`;
    }
    case 'invalid_union': {
      // The branch that got furthest speaks: its own words (a name's rule), else every branch's kind.
      const branches = Array.isArray(issue['errors']) ? (issue['errors'] as { code?: string; message: string }[][]) : [];
      const words = branches.flatMap((b) => (b[0] === undefined ? [] : [issueWords(b[0] as { code?: string; message: string } & Record<string, unknown>)]));
      const custom = words.find((w) => !w.startsWith('must be '));
      if (custom !== undefined) return custom;
      return words.length > 0 ? `must be ${[...new Set(words.map((w) => w.replace(/^must be /, '')))].join(' or ')}` : 'does not match any form this field takes';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue['divisor'])}`;
    case 'invalid_key':
      return 'has a key this field does not take';
    case 'invalid_element':
      return 'has an entry this field does not take';
    case 'unrecognized_keys':
      return 'has a field the operation does not take';
    default:
      break;
  }
  return 'does not take this value';
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
    // The first problem in the words of the contract's rule: the field, then what is wrong with its value.
    // A field the caller sent and got wrong speaks before one it left out (which is then "required").
    const candidates = parsed.error.issues.filter((i) => i.code !== 'unrecognized_keys' && declared.has(String(i.path[0] ?? '')));
    const sent = (i: { readonly path: readonly PropertyKey[] }): boolean => Object.hasOwn(payload, String(i.path[0]));
    const first = candidates.find(sent) ?? candidates[0];
    const rule = (first as { params?: { rule?: unknown } } | undefined)?.params?.rule;
    const nested = first ?? parsed.error.issues.find((i) => i.code !== 'unrecognized_keys');
    const message =
      first !== undefined
        ? `${issuePath(first.path)}: ${sent(first) ? issueWords(first as unknown as Parameters<typeof issueWords>[0]) : 'is required'}`
        : extra
          ? 'the request has a field the operation does not take'
          : `${nested === undefined ? 'the request' : issuePath(nested.path) || 'the request'}: ${nested === undefined ? 'is not in the form the operation takes' : issueWords(nested as unknown as Parameters<typeof issueWords>[0])}`;
    throw new GfError('GF_VALIDATION', message, {
      operation: op,
      fields,
      unexpected_keys: extra,
      ...(first === undefined ? {} : { field: issuePath(first.path) }),
      ...(typeof rule === 'string' ? { rule } : {}),
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
