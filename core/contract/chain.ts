// The chain ledgers' surface rules, declared once for every surface: where a
// Postgres ledger is named (option and environment variable) and what a
// verification report means (which results fail, with which chain id).
// Browser-safe; no zod, so `gf --help` can register the option cheaply.
import { ChainFailure, GfError, type OperationError } from './errors';

// ---- the ledger's closed state set and its legal edges (CHAIN.md; the engine builds events by them, the Ledgers path draws them)
/** The closed universe of ledger states (seed S1-02). */
export const LEDGER_STATE_KINDS = [
  'needs_plan',
  'plan_ready',
  'patch_applied',
  'gate_failed_retryable',
  'awaiting_human_review',
  'completed',
  'failed_unrecoverable',
] as const;

/** One ledger state. */
export type LedgerStateKind = (typeof LEDGER_STATE_KINDS)[number];

/** Terminal states: no edge leaves them. */
export const TERMINAL_LEDGER_KINDS: ReadonlySet<LedgerStateKind> = new Set<LedgerStateKind>(['completed', 'failed_unrecoverable']);

/**
 * The closed table of legal edges.
 *
 * Anything not listed is rejected when an event is built, so an illegal
 * transition can never reach a store.
 */
export const LEGAL_TRANSITIONS: Readonly<Record<LedgerStateKind, readonly LedgerStateKind[]>> = Object.freeze({
  needs_plan: Object.freeze(['plan_ready', 'failed_unrecoverable'] as const),
  plan_ready: Object.freeze(['patch_applied', 'awaiting_human_review', 'failed_unrecoverable'] as const),
  patch_applied: Object.freeze(['completed', 'gate_failed_retryable', 'awaiting_human_review', 'failed_unrecoverable'] as const),
  gate_failed_retryable: Object.freeze(['needs_plan', 'failed_unrecoverable'] as const),
  awaiting_human_review: Object.freeze(['needs_plan', 'completed', 'failed_unrecoverable'] as const),
  completed: Object.freeze([] as const),
  failed_unrecoverable: Object.freeze([] as const),
});

/** The environment variable that selects the shared PostgreSQL chain store (preferred: it never shows in `ps`). */
export const CHAIN_POSTGRES_URL_ENV = 'GF_CHAIN_POSTGRES_URL';

/** The command-line option that selects the PostgreSQL chain store (overrides the environment). */
export const CHAIN_POSTGRES_URL_OPTION = '--chain-postgres-url';

/** Chain workflow ids (CHAIN.md): 1–128 chars of `[A-Za-z0-9._:-]`, not `.` or `..`. */
export const WORKFLOW_ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/;

/** A chain head: `blake3:` and 64 lowercase hex digits. */
export const CHAIN_HEAD_PATTERN = /^blake3:[0-9a-f]{64}$/;

/** `workflows.invalid_workflow_id` when `text` cannot be a workflow id (the text is never echoed), else null. */
export function workflowIdRefusal(text: string): OperationError | null {
  return WORKFLOW_ID_PATTERN.test(text) ? null : new ChainFailure('workflows.invalid_workflow_id', 'not a valid workflow id', {});
}

/**
 * The failure a verification report stands for, or null when every chain verified.
 *
 * A torn row outranks a head mismatch, which outranks an unreadable ledger;
 * with `expected` (workflow id → recorded tail head), a tail other than the
 * recorded head is `workflows.checkpoint_head_unexpected` (a truncated tail
 * verifies on its own). `chain.verify` and `gf chain verify` both judge by this.
 */
export function verifyFailure(results: readonly VerifyEntry[], expected?: ReadonlyMap<string, string>): OperationError | null {
  if (results.some((r) => r.status === 'torn_write')) return new ChainFailure('workflows.checkpoint_torn_write', 'a chain has a torn row', {});
  if (results.some((r) => r.status === 'chain_mismatch')) return new ChainFailure('workflows.checkpoint_chain_mismatch', 'a chain head does not match its recomputation', {});
  const unreadable = results.find((r) => r.status === 'unreadable');
  if (unreadable !== undefined) return new GfError('GF_PROJECT_CORRUPT', 'a ledger file is unreadable', { name: unreadable.ledger ?? 'chain' });
  for (const [id, head] of expected ?? []) {
    if (results.find((r) => r.workflow_id === id)?.tail_head !== head) return new ChainFailure('workflows.checkpoint_head_unexpected', 'a tail head differs from the expected head', {});
  }
  return null;
}

// ---- ledger evidence that names a workspace generation
const MANIFEST_EVIDENCE = /^sha256:([0-9a-f]{64})$/;

/**
 * The manifest SHA-256 an evidence digest names, or null: a `patch_applied`
 * step records `sha256:<manifest sha256>` of the generation it published
 * (any other digest is opaque evidence).
 */
export function evidenceManifestSha256(digest: string | null): string | null {
  return digest === null ? null : (MANIFEST_EVIDENCE.exec(digest)?.[1] ?? null);
}

/** The generation of the workspace a piece of ledger evidence links to (from the workspace's lineage log). */
export interface LinkedGeneration {
  readonly generation_uuid: string;
  readonly seq: number;
  readonly published_at: string;
  /** Who published it (the lineage's actor UUID), or null when the publication recorded none. Chain events carry no actor. */
  readonly actor: string | null;
}

/** One evidence digest of a page of transitions that names a manifest, and the workspace's generation with it. */
export interface EvidenceGeneration {
  readonly evidence_digest: string;
  /** The earliest-published generation with that manifest, or null: the workspace has no such generation. */
  readonly generation: LinkedGeneration | null;
}

/** What surfaces say where a digest names a manifest no generation of the workspace has. */
export const NO_LINKED_GENERATION = 'no generation of this workspace has this manifest';

/** What surfaces say where the ledgers are not a workspace's (a directory opened by `chain.open` with no workspace). */
export const NO_LINEAGE = 'these ledgers belong to no workspace, so no generation can be looked up';

/** A file of expected chain heads (`gf chain verify --all --expect-head FILE`): at most 16 MiB. */
export const EXPECTED_HEADS_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** One workflow of a chain store, as `chain.list` returns it (verified once, in the same pass). */
export interface WorkflowEntry {
  readonly workflow_id: string;
  readonly rows: number;
  readonly tail_head: string;
  /** The last persisted transition's `next_state_id` (null for a torn last row). */
  readonly latest_state_id: string | null;
  /** The verifier's verdict from the same read (what `chain.verify` would return for this workflow). */
  readonly verify: VerifyEntry;
}

/** One transition event (CHAIN.md `TransitionEvent`). */
export interface ChainEvent {
  readonly sequence: number;
  readonly transition_id: string;
  readonly workflow_id: string;
  readonly prior_state_id: string;
  readonly next_state_id: string;
  readonly triggering_outcome: { readonly kind: string; readonly evidence_digest: string | null; readonly detail: string | null };
  readonly occurred_at: string;
  readonly attempt: number;
}

/** A verification result (`gf chain verify --json` row). */
export interface VerifyEntry {
  /** The workflow; for an `unreadable` ledger (its id cannot be read), the ledger's derived directory name. */
  readonly workflow_id: string;
  readonly status: 'ok' | 'chain_mismatch' | 'torn_write' | 'unreadable';
  readonly first_bad_sequence: number | null;
  readonly rows: number;
  readonly tail_head: string;
  /** For `unreadable`: the ledger file relative to the project (`chain/<dir>/checkpoints.sqlite`). */
  readonly ledger?: string;
  /** For `unreadable`: why (an SQLite result code such as `SQLITE_NOTADB`, or a store reason). */
  readonly cause?: string;
  /** For `chain_mismatch`: the expected and the stored head at the break (the verifier's evidence). */
  readonly break_head?: ChainBreak;
}

/**
 * Where a chain breaks: the head column of the first bad row that is wrong,
 * the head the verifier recomputed for it (from the verified prefix), and the
 * head the row stores. Only the verifier recomputes heads (CHAIN.md).
 */
export interface ChainBreak {
  /** `prior_head` (the row does not link to the head before it) or `next_head` (its head is not its recomputation). */
  readonly column: 'prior_head' | 'next_head';
  /** The head the verifier expected in that column. */
  readonly expected_head: string;
  /** The head the row stores in that column, as persisted. */
  readonly stored_head: string;
}

/** A ledger file that could not be read (one bad file never hides the others). */
export interface UnreadableLedger {
  /** The ledger file relative to the project. */
  readonly ledger: string;
  /** Why (an SQLite result code or a store reason). */
  readonly cause: string;
}
