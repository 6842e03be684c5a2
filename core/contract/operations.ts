// The one operation contract shared by the facade, the `gf` CLI, Electron IPC
// and the browser-mode HTTP bridge: the index of the operation domains.
// Each operation is declared once, in its domain's core/contract/ops/<domain>.ts
// (request schema, result, writes, summary); this module composes them into
// `OPERATIONS` in the order of core/contract/operation-names.ts and derives
// every request, result and row type from them. Browser-safe: zod and core/contract only.
import type { z } from 'zod';
import type { ArrowRow, ArrowSchemaName, RecordRow } from './results';
import { OPERATION_NAMES, type OperationName } from './operation-names';
import type { OperationSpec, ReturnsOf } from './ops/declare';
import { APP_OPERATIONS } from './ops/app';
import { PROJECT_OPERATIONS } from './ops/project';
import { CHECKPOINT_OPERATIONS } from './ops/checkpoints';
import { VIEW_OPERATIONS } from './ops/views';
import { DIFF_OPERATIONS } from './ops/diff';
import { CHAIN_OPERATIONS } from './ops/chain';
import { THREAD_OPERATIONS } from './ops/threads';
import { HISTORY_OPERATIONS } from './ops/history';
import { WORKSPACE_OPERATIONS } from './ops/workspace';
import { GRAPH_OPERATIONS } from './ops/graph';
import { MAINTENANCE_OPERATIONS } from './ops/maintenance';

export { OPERATION_NAMES, isOperationName, unknownOperation } from './operation-names';
export type { OperationName } from './operation-names';
export { MAX_VECTOR_FILE_CHARS, PARTICIPANT_LIMITS } from './maintenance';
export { WORKFLOW_ID_PATTERN } from './chain';
export type { ChainBreak, ChainEvent, UnreadableLedger, VerifyEntry, WorkflowEntry } from './chain';
export type { HistoryCheckpoint, HistoryEntry, HistoryPage, HistoryStatus, LineageKind, PrunableGeneration, RetentionPolicy, RetentionSource } from './history';
export { DEFAULT_RETAIN_ANCESTORS, HISTORY_STATUSES, LINEAGE_KINDS, RETAIN_ANCESTORS_MAX, RETENTION_SOURCES } from './history';
/** Diff scopes and detail levels (frozen by `checkpoint-api-v1.json`). */
export { DIFF_DETAILS, DIFF_SCOPES } from './diff';
export type { DiffDetail, DiffScope } from './diff';
export { NEXT_PAGE_TOKEN_KEY } from './results';
export { LIMITS, PAGE_TOKEN_PATTERN, UUID_PATTERN, checkpointNameSchema, directorySchema, displayNameSchema, handleSchema, newCheckpointNameSchema, reasonSchema, selectorSchema, uuidSchema } from './ops/atoms';
export { RESULT_KINDS, type OperationSpec, type ResultKind } from './ops/declare';
export type { AppSession, ChosenWorkspace } from './ops/app';
export type { ChangeToken, GenerationSummary, ProjectOpened, ProjectSummary, RestorationSummary } from './ops/project';
export type { PreviewChange, RevertPreview } from './ops/checkpoints';
export type { ParticipantEntry, ViewOpened } from './ops/views';
export type { RecordChangeEntry, RecordJson } from './ops/diff';
export type { ChainEventPage, ChainHealth, ChainRowPage } from './ops/chain';
export { threadIdSchema, threadSourceSchema } from './ops/threads';

/** Every domain's operations (each name in exactly one of them). */
const DOMAINS = [
  APP_OPERATIONS,
  PROJECT_OPERATIONS,
  CHECKPOINT_OPERATIONS,
  VIEW_OPERATIONS,
  DIFF_OPERATIONS,
  CHAIN_OPERATIONS,
  THREAD_OPERATIONS,
  HISTORY_OPERATIONS,
  WORKSPACE_OPERATIONS,
  GRAPH_OPERATIONS,
  MAINTENANCE_OPERATIONS,
] as const;

/** A name declared by two domains (never: one declaration per operation). */
type Overlap<T extends readonly object[], Seen extends PropertyKey = never> = T extends readonly [infer H extends object, ...infer R extends readonly object[]]
  ? (keyof H & Seen) | Overlap<R, Seen | keyof H>
  : never;
const NO_OPERATION_DECLARED_TWICE: [Overlap<typeof DOMAINS>] extends [never] ? true : false = true;
void NO_OPERATION_DECLARED_TWICE;

type Declared = typeof APP_OPERATIONS &
  typeof PROJECT_OPERATIONS &
  typeof CHECKPOINT_OPERATIONS &
  typeof VIEW_OPERATIONS &
  typeof DIFF_OPERATIONS &
  typeof CHAIN_OPERATIONS &
  typeof THREAD_OPERATIONS &
  typeof HISTORY_OPERATIONS &
  typeof WORKSPACE_OPERATIONS &
  typeof GRAPH_OPERATIONS &
  typeof MAINTENANCE_OPERATIONS;

/** Every operation name has a declaration, and every declaration a name (a missing or extra one fails here). */
type Operations = { readonly [N in OperationName]: Declared[N & keyof Declared] };
const EVERY_OPERATION_DECLARED: [Exclude<OperationName, keyof Declared>] extends [never] ? true : false = true;
const EVERY_DECLARATION_NAMED: [Exclude<keyof Declared, OperationName>] extends [never] ? true : false = true;
void EVERY_OPERATION_DECLARED;
void EVERY_DECLARATION_NAMED;

const declared: Readonly<Record<string, OperationSpec>> = Object.assign({}, ...DOMAINS) as Readonly<Record<string, OperationSpec>>;

/**
 * Every user-visible operation, in the order of `OPERATION_NAMES`.
 *
 * Electron registers one IPC channel per entry (`gf:<name>`), the bridge
 * serves `POST /api/<name>`, and the CLI calls the same facade entry. The
 * renderer imports this module to type its `invoke`.
 */
export const OPERATIONS: Operations = Object.fromEntries(OPERATION_NAMES.map((name) => [name, declared[name]])) as unknown as Operations;
OPERATIONS satisfies { readonly [N in OperationName]: OperationSpec };

/** The validated request type of an operation. */
export type OperationRequest<N extends OperationName> = z.output<Operations[N]['request']>;

/** The caller-side (input) request type of an operation. */
export type OperationInput<N extends OperationName> = z.input<Operations[N]['request']>;

/**
 * An Arrow result: IPC stream bytes plus the token of the next page.
 *
 * The same token is also in the schema metadata under `NEXT_PAGE_TOKEN_KEY`,
 * so the bytes alone (as the CLI's `--arrow` writes them) are complete.
 */
export interface ArrowResult {
  readonly kind: 'arrow';
  readonly bytes: Uint8Array;
  readonly next_page_token: string | null;
}

/** Operations whose result is an Arrow IPC stream. */
export type ArrowOperation = { [N in OperationName]: Operations[N]['result'] extends 'arrow' ? N : never }[OperationName];

/** Operations whose result is a JSON value. */
export type JsonOperation = Exclude<OperationName, ArrowOperation>;

/** JSON result types per operation (from each operation's declaration). */
export type JsonResults = { readonly [N in JsonOperation]: ReturnsOf<Operations[N]> };

/** The result type of an operation. */
export type OperationResult<N extends OperationName> = Operations[N]['result'] extends 'arrow' ? ArrowResult : N extends JsonOperation ? JsonResults[N] : never;

/** The result schema(s) an Arrow operation returns (`records`: a participant table, the record family's own columns). */
type SchemasDeclared<N extends ArrowOperation> = Operations[N] extends { readonly schemas: infer A } ? A : never;

/** The result schema(s) of every Arrow operation, from the operations' declarations. */
export const ARROW_OPERATION_SCHEMAS = Object.fromEntries(
  OPERATION_NAMES.flatMap((name) => {
    const spec: OperationSpec & { readonly schemas?: unknown } = OPERATIONS[name];
    return spec.schemas === undefined ? [] : [[name, spec.schemas]];
  }),
) as { readonly [N in ArrowOperation]: SchemasDeclared<N> };

/** The result schema names an Arrow operation can return. */
export type SchemasOf<N extends ArrowOperation> = SchemasDeclared<N> extends readonly (infer S extends ArrowSchemaName)[] ? S : never;

/**
 * One decoded row of an Arrow operation's result.
 *
 * A union when the operation has several schemas; narrow with `S` (e.g.
 * `Row<'checkpoints.list', 'checkpoint@1'>`). Participant tables are `RecordRow`s.
 */
export type Row<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>> = SchemasDeclared<N> extends 'records' ? RecordRow : S extends ArrowSchemaName ? ArrowRow<S> : never;
