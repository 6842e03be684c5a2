// How one operation is declared: its request schema, its result (a JSON
// result type, or the Arrow result schemas it returns), whether it writes and
// its one-line summary, in one call. Every core/contract/ops/<domain>.ts
// declares its operations with `jsonOp` / `arrowOp`; the index
// (core/contract/operations.ts) derives every table and type from them.
import type { z } from 'zod';
import type { ArrowSchemaName } from '../results';
import type { OperationName } from '../operation-names';

/** Result kinds: a JSON value, or an Arrow IPC stream (with its next-page token). */
export const RESULT_KINDS = ['json', 'arrow'] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];

/** One declared operation: its request schema, result kind and whether it writes. */
export interface OperationSpec {
  /** Runtime-validated request: a `.strict()` object, bounded strings, closed enums. */
  readonly request: z.ZodType;
  /** `json` values travel as-is; `arrow` results travel as IPC stream bytes. */
  readonly result: ResultKind;
  /** Writes report `committed` on failure. */
  readonly writes: boolean;
  /** One line for `--help`, the renderer and docs. */
  readonly summary: string;
}

/** The JSON result type of an operation, carried by its declaration (a type only: nothing at run time). */
export interface Returns<T> {
  readonly json?: (value: T) => T;
}

/** Names `T` as a JSON operation's result type. */
export const returns = <T>(): Returns<T> => ({});

/** A JSON operation: its request schema and result type `T`. */
export interface JsonOperationSpec<S extends z.ZodType, T> extends OperationSpec {
  readonly request: S;
  readonly result: 'json';
  readonly returns: Returns<T>;
}

/**
 * An Arrow operation: its request schema and the result schema(s) it returns.
 *
 * `records` marks a participant table (`view.records`, `view.record`): its
 * columns are the record family's own.
 */
export interface ArrowOperationSpec<S extends z.ZodType, A extends readonly ArrowSchemaName[] | 'records'> extends OperationSpec {
  readonly request: S;
  readonly result: 'arrow';
  readonly schemas: A;
}

/** Declares a JSON operation. */
export function jsonOp<S extends z.ZodType, T>(request: S, result: Returns<T>, writes: boolean, summary: string): JsonOperationSpec<S, T> {
  return { request, result: 'json', returns: result, writes, summary };
}

/** Declares an Arrow operation; a schema name the contract does not declare fails the build. */
export function arrowOp<S extends z.ZodType, const A extends readonly ArrowSchemaName[] | 'records'>(request: S, schemas: A, writes: boolean, summary: string): ArrowOperationSpec<S, A> {
  return { request, result: 'arrow', schemas, writes, summary };
}

/** The JSON result type a declaration names. */
export type ReturnsOf<O> = O extends { readonly returns: Returns<infer T> } ? T : never;

/** One domain's share of the operations: each key must be a declared operation name. */
export type DomainOperations = { readonly [N in OperationName]?: OperationSpec };
