import { describe, expect, it } from 'vitest';
import {
  buildTransitionEvent,
  ensureParsedEvent,
  isLegalTransition,
  LEDGER_STATE_KINDS,
  LEGAL_TRANSITIONS,
  SEMANTIC_BOUNDARY_KINDS,
  TERMINAL_LEDGER_KINDS,
  type LedgerStateKind,
} from '../../../../core/chain/event';
import { InMemoryChainStore } from '../../../../core/chain/memory/memory-store';
import { prepareAppend } from '../../../../core/chain/store-support';

const errorId = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return (e as { errorId?: unknown }).errorId;
  }
  return 'no error';
};

const base = { workflow_id: 'wf-1', triggering_outcome: { kind: 'k' }, occurred_at: new Date(Date.UTC(2026, 0, 1)) } as const;

describe('ledger states and edges', () => {
  it('AC-3 the semantic-boundary catalog is exactly the six kinds, a subset of the states, and includes every terminal', () => {
    expect([...SEMANTIC_BOUNDARY_KINDS].sort()).toEqual(
      ['awaiting_human_review', 'completed', 'failed_unrecoverable', 'gate_failed_retryable', 'patch_applied', 'plan_ready'].sort(),
    );
    for (const k of SEMANTIC_BOUNDARY_KINDS) expect(LEDGER_STATE_KINDS).toContain(k);
    for (const k of TERMINAL_LEDGER_KINDS) expect(SEMANTIC_BOUNDARY_KINDS.has(k)).toBe(true);
    expect(SEMANTIC_BOUNDARY_KINDS.has('needs_plan')).toBe(false);
  });

  it('the legal-edge table is closed: the builder accepts exactly its edges', () => {
    let legal = 0;
    for (const from of LEDGER_STATE_KINDS) {
      for (const to of LEDGER_STATE_KINDS) {
        const id = errorId(() => buildTransitionEvent({ ...base, prior_state_id: from, next_state_id: to }));
        if (LEGAL_TRANSITIONS[from].includes(to)) {
          legal += 1;
          expect(id, `${from}->${to}`).toBe('no error');
          expect(isLegalTransition(from, to)).toBe(true);
        } else {
          expect(id, `${from}->${to}`).toBe('workflows.illegal_transition');
        }
      }
    }
    expect(legal).toBe(14);
    expect(LEGAL_TRANSITIONS.completed).toEqual([]);
    expect(LEGAL_TRANSITIONS.failed_unrecoverable).toEqual([]);
  });

  it('AC-4 the store rejects every non-boundary target with the policy directive', async () => {
    const store = new InMemoryChainStore();
    const nonBoundary = LEDGER_STATE_KINDS.filter((k) => !SEMANTIC_BOUNDARY_KINDS.has(k));
    expect(nonBoundary).toEqual(['needs_plan']);
    for (const to of nonBoundary) {
      const from = LEDGER_STATE_KINDS.find((f) => LEGAL_TRANSITIONS[f].includes(to)) as LedgerStateKind;
      const e = buildTransitionEvent({ ...base, prior_state_id: from, next_state_id: to });
      const err = await store.append(e).then(
        () => undefined,
        (x: unknown) => x as { errorId: string; message: string },
      );
      expect(err?.errorId).toBe('workflows.checkpoint_boundary_violation');
      expect(err?.message).toContain('is not a semantic boundary');
    }
    expect(await store.listWorkflows()).toEqual([]);
  });
});

describe('buildTransitionEvent', () => {
  it('builds a frozen seven-field event with a ULID and microsecond UTC time (AC-14 frozen values)', () => {
    const e = buildTransitionEvent({ ...base, prior_state_id: 'needs_plan', next_state_id: 'plan_ready', attempt: 2 });
    expect(Object.keys(e).sort()).toEqual(['attempt', 'next_state_id', 'occurred_at', 'prior_state_id', 'transition_id', 'triggering_outcome', 'workflow_id']);
    expect(e.transition_id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(e.occurred_at).toBe('2026-01-01T00:00:00.000000Z');
    expect(e.triggering_outcome).toEqual({ kind: 'k', evidence_digest: null, detail: null });
    expect(Object.isFrozen(e) && Object.isFrozen(e.triggering_outcome)).toBe(true);
    expect(() => {
      (e as { attempt: number }).attempt = 3;
    }).toThrow(TypeError);
  });

  it('uses the injected clock and id source', () => {
    const e = buildTransitionEvent(
      { workflow_id: 'wf', prior_state_id: 'needs_plan', next_state_id: 'plan_ready', triggering_outcome: { kind: 'k' } },
      { now: () => new Date(Date.UTC(2030, 1, 2, 3, 4, 5, 6)), newId: () => '01ARZ3NDEKTSV4RRFFQ69G5FAV' },
    );
    expect([e.occurred_at, e.transition_id]).toEqual(['2030-02-02T03:04:05.006000Z', '01ARZ3NDEKTSV4RRFFQ69G5FAV']);
  });

  it('rejects malformed fields by field name, never echoing the value', () => {
    const ok = { ...base, prior_state_id: 'needs_plan', next_state_id: 'plan_ready' } as const;
    const cases: readonly [Parameters<typeof buildTransitionEvent>[0], string][] = [
      [{ ...ok, workflow_id: '..' }, 'workflows.invalid_workflow_id'],
      [{ ...ok, workflow_id: 'a/b' }, 'workflows.invalid_workflow_id'],
      [{ ...ok, workflow_id: 'x'.repeat(129) }, 'workflows.invalid_workflow_id'],
      [{ ...ok, workflow_id: `ghp_${'a'.repeat(36)}` }, 'workflows.invalid_workflow_id'],
      [{ ...ok, triggering_outcome: { kind: '' } }, 'workflows.invalid_transition_event'],
      [{ ...ok, triggering_outcome: { kind: 'k'.repeat(65) } }, 'workflows.invalid_transition_event'],
      [{ ...ok, triggering_outcome: { kind: 'k', evidence_digest: 'md5:abc' } }, 'workflows.invalid_transition_event'],
      [{ ...ok, triggering_outcome: { kind: 'k', detail: 'lone \uD800 surrogate' } }, 'workflows.invalid_transition_event'],
      [{ ...ok, attempt: -1 }, 'workflows.invalid_transition_event'],
      [{ ...ok, attempt: 1.5 }, 'workflows.invalid_transition_event'],
      [{ ...ok, transition_id: 'lowercase01arz3ndektsv4rrff' }, 'workflows.invalid_transition_event'],
      [{ ...ok, occurred_at: '2026-01-01T00:00:00Z' }, 'workflows.invalid_transition_event'],
      [{ ...ok, prior_state_id: 'bogus' as LedgerStateKind }, 'workflows.invalid_transition_event'],
    ];
    for (const [input, id] of cases) expect(errorId(() => buildTransitionEvent(input)), JSON.stringify(input).slice(0, 80)).toBe(id);
    let thrown: unknown;
    try {
      buildTransitionEvent({ ...ok, triggering_outcome: { kind: 'k', evidence_digest: 'password=hunter2hunter2' } });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as { errorId?: string }).errorId).toBe('workflows.invalid_transition_event');
    expect((thrown as Error).message).not.toContain('hunter2');
  });
});

describe('ensureParsedEvent (the append path parses an event once)', () => {
  const built = buildTransitionEvent({ ...base, prior_state_id: 'needs_plan', next_state_id: 'plan_ready' });

  it('trusts only the frozen events this module parsed; a copy or a forged object is parsed again and refused by field', () => {
    expect(ensureParsedEvent(built)).toBe(built);
    expect(Object.isFrozen(built) && Object.isFrozen(built.triggering_outcome)).toBe(true);
    // A copy with the same shape is a different object: parsed (and so refused when wrong), never trusted.
    expect(errorId(() => ensureParsedEvent({ ...built, attempt: -1 }))).toBe('workflows.invalid_transition_event');
    expect(errorId(() => ensureParsedEvent({ ...built, triggering_outcome: { ...built.triggering_outcome, kind: 7 } }))).toBe('workflows.invalid_transition_event');
    expect(errorId(() => prepareAppend({ ...built, occurred_at: 'yesterday' }))).toBe('workflows.invalid_transition_event');
    const copy = ensureParsedEvent({ ...built });
    expect(copy).not.toBe(built);
    expect(copy).toEqual(built);
  });
});
