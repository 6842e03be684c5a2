// The prune planner: per thread the newest `keep_last` stay, and of the older ones a prune never deletes the head,
// an interrupted checkpoint, a restore's head, the checkpoint a restore copied, or one whose metadata does not read.
import { describe, expect, it } from 'vitest';
import { planPrune, type PruneFact } from '../../../../core/langgraph/thread-prune';

const fact = (thread_id: string, checkpoint_id: string, more: Partial<PruneFact> = {}): PruneFact => ({ thread_id, checkpoint_id, restored_from: null, interrupted: false, readable: true, ...more });
const ids = (plan: ReturnType<typeof planPrune>) => plan.remove.map((k) => `${k.thread_id}/${k.checkpoint_id}`);

describe('planPrune', () => {
  it('keeps the newest keep_last of each thread (by checkpoint id) and removes the rest, whatever order the facts come in', () => {
    const facts = [fact('t', '1'), fact('u', '2'), fact('t', '3'), fact('t', '2'), fact('u', '1')];
    expect(ids(planPrune(facts, 1, null))).toEqual(['t/2', 't/1', 'u/1']);
    expect(ids(planPrune(facts, 2, null))).toEqual(['t/1']);
    expect(ids(planPrune(facts, 3, null))).toEqual([]);
    expect(planPrune(facts, 1, null).threads).toBe(2);
    expect(planPrune([...facts].reverse(), 1, null).digest).toBe(planPrune(facts, 1, null).digest);
  });

  it('never removes a thread\'s head, even with keep_last 0', () => {
    const plan = planPrune([fact('t', '1'), fact('t', '2')], 0, 't');
    expect(ids(plan)).toEqual(['t/1']);
    expect(plan.kept.head).toBe(1);
  });

  it('never removes an interrupted checkpoint, a restore\'s head or its target, or unreadable metadata; each is counted once by its first reason', () => {
    const facts = [
      fact('t', '9'),
      fact('t', '8', { restored_from: '3' }), // a restore's head, copied from 3
      fact('t', '7', { interrupted: true }),
      fact('t', '6', { readable: false }),
      fact('t', '5'),
      fact('t', '4', { interrupted: true, restored_from: '1' }),
      fact('t', '3'),
      fact('t', '2'),
      fact('t', '1'),
    ];
    const plan = planPrune(facts, 1, null);
    expect(ids(plan)).toEqual(['t/5', 't/2']);
    expect(plan.kept).toEqual({ head: 0, interrupted: 2, restored_head: 1, restore_target: 2, unreadable: 1 });
  });

  it('a restore target in another thread of the same id is not protected: targets are per thread', () => {
    const plan = planPrune([fact('t', '3'), fact('t', '2', { restored_from: '1' }), fact('t', '1'), fact('u', '3'), fact('u', '1')], 1, null);
    expect(ids(plan)).toEqual(['u/1']);
  });

  it('the digest names the request and the set: another keep_last, thread or set gives another digest', () => {
    const facts = [fact('t', '1'), fact('t', '2'), fact('t', '3')];
    const base = planPrune(facts, 1, null).digest;
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(planPrune(facts, 1, 't').digest).not.toBe(base);
    expect(planPrune(facts, 2, null).digest).not.toBe(base);
    expect(planPrune([...facts, fact('t', '4')], 1, null).digest).not.toBe(base);
    expect(planPrune(facts, 1, null).digest).toBe(base);
  });
});
