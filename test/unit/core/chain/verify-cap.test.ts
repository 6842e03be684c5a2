import { describe, expect, it } from 'vitest';
import { canonicalEventBytes } from '../../../../core/chain/canonical-event';
import { buildTransitionEvent } from '../../../../core/chain/event';
import { GENESIS, nextHead } from '../../../../core/chain/head';
import { MAX_EVENT_BYTES, type PersistedRow } from '../../../../core/chain/port';
import { verify } from '../../../../core/chain/verify';

// The 65,536-byte event cap is the verifier's rule too: a row over it cannot
// be one a store wrote, even when the attacker rehashed the whole chain.

function rehashed(details: readonly string[]): PersistedRow[] {
  let head = GENESIS;
  return details.map((detail, i) => {
    const event = buildTransitionEvent({ workflow_id: 'wf-cap', prior_state_id: 'needs_plan', next_state_id: 'plan_ready', triggering_outcome: { kind: 'planner', detail }, attempt: 1, occurred_at: '2026-01-01T00:00:00.000000Z' });
    const bytes = canonicalEventBytes(event);
    const next = nextHead(head, bytes);
    const row: PersistedRow = { sequence: i + 1, transition_id: event.transition_id, prior_head: head, next_head: next, event_bytes: bytes, written_at: '2026-01-01T00:00:00.000000Z' };
    head = next;
    return row;
  });
}

const reader = (rows: PersistedRow[]) => ({
  async *readPersistedRows() {
    yield* rows;
  },
});

describe('verify applies the event cap', () => {
  it('a canonical, correctly rehashed event over 65,536 bytes is a torn row at its sequence', async () => {
    const rows = rehashed(['x'.repeat(MAX_EVENT_BYTES + 1)]);
    expect(rows[0]?.event_bytes.byteLength).toBeGreaterThan(MAX_EVENT_BYTES);
    expect(await verify(reader(rows), 'wf-cap')).toMatchObject({ status: 'torn_write', first_bad_sequence: 1 });
  });

  it('an event just under the cap verifies', async () => {
    const probe = canonicalEventBytes(buildTransitionEvent({ workflow_id: 'wf-cap', prior_state_id: 'needs_plan', next_state_id: 'plan_ready', triggering_outcome: { kind: 'planner', detail: '' }, attempt: 1, occurred_at: '2026-01-01T00:00:00.000000Z' })).byteLength;
    const rows = rehashed(['y'.repeat(MAX_EVENT_BYTES - probe)]);
    expect(rows[0]?.event_bytes.byteLength).toBe(MAX_EVENT_BYTES);
    expect((await verify(reader(rows), 'wf-cap')).status).toBe('ok');
  });
});
