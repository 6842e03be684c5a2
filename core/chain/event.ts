import { ulid } from 'ulid';
import { z } from 'zod';
import {
  CheckpointBoundaryViolationError,
  IllegalTransitionError,
  InvalidTransitionEventError,
  InvalidWorkflowIdError,
} from './errors';
import { looksLikeCredential } from './sanitize';
import { LEDGER_STATE_KINDS, LEGAL_TRANSITIONS, type LedgerStateKind } from '../contract/chain';

export { LEDGER_STATE_KINDS, LEGAL_TRANSITIONS, TERMINAL_LEDGER_KINDS, type LedgerStateKind } from '../contract/chain';
import type { TransitionEvent, TransitionId, WorkflowId } from './event-types';
export type { TransitionEvent, TransitionId, TriggeringOutcome, WorkflowId } from './event-types';

/**
 * The semantic boundaries: the only `next_state_id` values a store accepts.
 *
 * ADR-0003 "persist only at semantic boundaries": plan acceptance, patch
 * application, gate result, escalation, terminal. `needs_plan` is the one
 * non-boundary kind (a write there would snapshot the initial state).
 */
export const SEMANTIC_BOUNDARY_KINDS: ReadonlySet<LedgerStateKind> = new Set<LedgerStateKind>(LEDGER_STATE_KINDS.filter((k) => k !== 'needs_plan'));

const WORKFLOW_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const OCCURRED_AT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const DIGEST_RE = /^(sha256|blake3):[0-9a-f]{64}$/;

function hasWorkflowIdFormat(id: unknown): id is WorkflowId {
  return typeof id === 'string' && WORKFLOW_ID_RE.test(id) && id !== '.' && id !== '..';
}

/** True when `id` is a well-formed workflow id (and does not look like a credential). */
export function isWorkflowId(id: unknown): id is WorkflowId {
  return hasWorkflowIdFormat(id) && !looksLikeCredential(id);
}

/** Throws `workflows.invalid_workflow_id` unless `id` is a well-formed workflow id. */
export function assertWorkflowId(id: unknown): asserts id is WorkflowId {
  if (!isWorkflowId(id)) throw new InvalidWorkflowIdError();
}

/** True when `head` is a well-formed evidence digest. */
export function isEvidenceDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST_RE.test(value);
}

/** Formats a Date as ISO-8601 UTC with microseconds (the sub-millisecond digits are zero). */
export function toMicrosIso(date: Date): string {
  const iso = date.toISOString(); // 2026-01-01T00:00:00.000Z
  return `${iso.slice(0, 23)}000Z`;
}

/** True when `from → to` is a legal edge. */
export function isLegalTransition(from: LedgerStateKind, to: LedgerStateKind): boolean {
  return LEGAL_TRANSITIONS[from].includes(to);
}

/** True when a store may checkpoint a transition into `kind`. */
export function isSemanticBoundary(kind: LedgerStateKind): boolean {
  return SEMANTIC_BOUNDARY_KINDS.has(kind);
}

/** Throws `workflows.checkpoint_boundary_violation` unless the event targets a semantic boundary. */
export function assertSemanticBoundary(event: Pick<TransitionEvent, 'next_state_id'>): void {
  if (!isSemanticBoundary(event.next_state_id)) throw new CheckpointBoundaryViolationError(event.next_state_id);
}

const stateSchema = z.enum(LEDGER_STATE_KINDS);

const LONE_SURROGATE_RE = /[\uD800-\uDFFF]/u;

/** False for text with a lone surrogate (it has no UTF-8 form, so it could not read back equal). */
function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE_RE.test(text);
}

/** The strict shape of a transition event (unknown keys rejected). */
export const transitionEventSchema = z.strictObject({
  transition_id: z.string().regex(ULID_RE),
  workflow_id: z.string().refine(hasWorkflowIdFormat),
  prior_state_id: stateSchema,
  next_state_id: stateSchema,
  triggering_outcome: z.strictObject({
    kind: z.string().min(1).max(64).refine(isWellFormedText),
    // Stored events may carry the sanitizer's sentinel instead of a digest.
    evidence_digest: z.string().nullable(),
    detail: z.string().refine(isWellFormedText).nullable(),
  }),
  occurred_at: z.string().regex(OCCURRED_AT_RE).refine((s) => Number.isFinite(Date.parse(s))),
  attempt: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

/**
 * Events this module parsed: frozen (the outcome too) and made of primitives,
 * so they cannot have changed since, and a second parse would find the same.
 */
const PARSED = new WeakSet<TransitionEvent>();

function freezeEvent(e: TransitionEvent): TransitionEvent {
  Object.freeze(e.triggering_outcome);
  PARSED.add(Object.freeze(e));
  return e;
}

/**
 * `value` as a parsed event: itself when this module already parsed it (the
 * builder's events, a read-back row), else `parseTransitionEvent(value)`.
 *
 * A store validates every event it appends; most arrive from
 * `buildTransitionEvent`, which parsed them already, and each parse costs
 * about as much as the rest of the append's protocol work.
 */
export function ensureParsedEvent(value: unknown): TransitionEvent {
  return typeof value === 'object' && value !== null && PARSED.has(value as TransitionEvent) ? (value as TransitionEvent) : parseTransitionEvent(value);
}

function firstIssueField(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined || issue.path.length === 0 ? 'event' : issue.path.map(String).join('.');
}

/**
 * Parses an untrusted value (e.g. stored JSON) into a frozen event.
 *
 * Checks the shape only (the legal-edge table is enforced by the builder and
 * by nothing that reads): a stored row must read back exactly as persisted.
 */
export function parseTransitionEvent(value: unknown): TransitionEvent {
  const r = transitionEventSchema.safeParse(value);
  if (!r.success) throw new InvalidTransitionEventError(firstIssueField(r.error));
  const v = r.data;
  return freezeEvent({
    transition_id: v.transition_id,
    workflow_id: v.workflow_id,
    prior_state_id: v.prior_state_id,
    next_state_id: v.next_state_id,
    triggering_outcome: { kind: v.triggering_outcome.kind, evidence_digest: v.triggering_outcome.evidence_digest, detail: v.triggering_outcome.detail },
    occurred_at: v.occurred_at,
    attempt: v.attempt,
  });
}

/** Input of `buildTransitionEvent`; ids and time are filled in when absent. */
export interface TransitionEventInput {
  readonly workflow_id: WorkflowId;
  readonly prior_state_id: LedgerStateKind;
  readonly next_state_id: LedgerStateKind;
  readonly triggering_outcome: {
    readonly kind: string;
    readonly evidence_digest?: string | null;
    readonly detail?: string | null;
  };
  readonly attempt?: number;
  readonly transition_id?: TransitionId;
  /** A Date (rendered with microseconds) or an ISO string already in the microsecond form. */
  readonly occurred_at?: Date | string;
}

/** Injected sources of time and identity (tests pass fixed ones). */
export interface EventBuilderDeps {
  readonly now?: () => Date;
  readonly newId?: (seedTime: number) => TransitionId;
}

/**
 * Builds a frozen, validated transition event.
 *
 * The legal-edge table is enforced here (`workflows.illegal_transition`);
 * evidence must be a digest (`sha256:`/`blake3:` + 64 hex). The builder does
 * not cap size and does not check the boundary rule: those are store rules.
 */
export function buildTransitionEvent(input: TransitionEventInput, deps: EventBuilderDeps = {}): TransitionEvent {
  assertWorkflowId(input.workflow_id); // format and not credential-shaped (parsing checks the format only)
  if (!stateSchema.safeParse(input.prior_state_id).success) throw new InvalidTransitionEventError('prior_state_id');
  if (!stateSchema.safeParse(input.next_state_id).success) throw new InvalidTransitionEventError('next_state_id');
  if (!isLegalTransition(input.prior_state_id, input.next_state_id)) {
    throw new IllegalTransitionError(input.prior_state_id, input.next_state_id);
  }
  const digest = input.triggering_outcome.evidence_digest ?? null;
  if (digest !== null && !isEvidenceDigest(digest)) throw new InvalidTransitionEventError('triggering_outcome.evidence_digest');
  const now = deps.now ?? (() => new Date());
  let occurredAt: string;
  let seedTime: number;
  if (input.occurred_at === undefined || input.occurred_at instanceof Date) {
    const d = input.occurred_at ?? now();
    if (Number.isNaN(d.getTime())) throw new InvalidTransitionEventError('occurred_at');
    occurredAt = toMicrosIso(d);
    seedTime = d.getTime();
  } else {
    occurredAt = input.occurred_at;
    seedTime = Date.parse(occurredAt);
  }
  const transitionId = input.transition_id ?? (deps.newId ?? ((t: number) => ulid(t)))(Number.isFinite(seedTime) ? seedTime : Date.now());
  return parseTransitionEvent({
    transition_id: transitionId,
    workflow_id: input.workflow_id,
    prior_state_id: input.prior_state_id,
    next_state_id: input.next_state_id,
    triggering_outcome: {
      kind: input.triggering_outcome.kind,
      evidence_digest: digest,
      detail: input.triggering_outcome.detail ?? null,
    },
    occurred_at: occurredAt,
    attempt: input.attempt ?? 0,
  });
}
