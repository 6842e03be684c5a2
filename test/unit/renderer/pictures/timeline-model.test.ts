import { describe, expect, it } from 'vitest';
import { markRadius, namedNeighbours, secondsOf, timelineModel, type LineageEntry } from '../../../../renderer/pictures/timeline-model';

const G = (n: number): string => `00000000-0000-8000-8000-${String(n).padStart(12, '0')}`;
const C = (n: number): string => `11111111-0000-8000-8000-${String(n).padStart(12, '0')}`;

function entry(seq: number, over: Partial<LineageEntry> = {}): LineageEntry {
  return {
    seq,
    generation_uuid: G(seq),
    parent_generation_uuid: seq === 1 ? null : G(seq - 1),
    manifest_sha256: '0'.repeat(64),
    published_at: `2024-01-01T${String(seq).padStart(2, '0')}:00:00.000001Z`,
    actor: null,
    kind: seq === 1 ? 'first' : 'publication',
    restored_checkpoint_uuid: null,
    restored_checkpoint_name: null,
    reason: null,
    participants_changed: seq,
    status: 'retained',
    checkpoints: [],
    ...over,
  };
}

describe('timelineModel', () => {
  const entries = [
    entry(4, { kind: 'revert', restored_checkpoint_uuid: C(2), restored_checkpoint_name: 'two', status: 'current' }),
    entry(2, { checkpoints: [{ checkpoint_uuid: C(2), name: 'two', description: null }] }),
    entry(1, { status: 'pruned' }),
    entry(3),
    entry(5, { kind: 'revert', restored_checkpoint_uuid: C(9), restored_checkpoint_name: 'deleted one' }),
  ];

  it('has one mark per entry in publication order, hollow exactly for pruned entries, flags from the checkpoint names', () => {
    const m = timelineModel(entries);
    expect(m.marks.map((x) => x.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(m.marks.filter((x) => x.hollow).map((x) => x.seq)).toEqual([1]);
    expect(m.marks.find((x) => x.seq === 2)?.flags).toEqual(['two']);
    expect(m.marks.map((x) => x.changed)).toEqual([1, 2, 3, 4, 5]);
  });

  it('draws a revert arc to the generation its checkpoint names, or to the summary\'s restored generation, and counts reverts it cannot place', () => {
    expect(timelineModel(entries).arcs).toEqual([{ from: G(4), to: G(2), checkpoint: 'two' }]);
    expect(timelineModel(entries).unplacedReverts).toBe(1);
    const placed = timelineModel(entries, new Map([[G(5), G(3)]]));
    expect(placed.arcs).toEqual([{ from: G(4), to: G(2), checkpoint: 'two' }, { from: G(5), to: G(3), checkpoint: 'deleted one' }]);
    expect(placed.unplacedReverts).toBe(0);
  });

  it('reads microsecond times exactly enough to order them, and finds the nearest named neighbours', () => {
    expect(secondsOf('2024-01-01T00:00:01.000002Z')).toBeGreaterThan(secondsOf('2024-01-01T00:00:01.000001Z'));
    expect(secondsOf('2024-01-01T00:00:01Z')).toBe(Date.UTC(2024, 0, 1, 0, 0, 1) / 1000);
    const m = timelineModel([entry(1, { checkpoints: [{ checkpoint_uuid: C(1), name: 'a', description: null }] }), entry(2), entry(3, { checkpoints: [{ checkpoint_uuid: C(3), name: 'c', description: null }] }), entry(4)]);
    expect(namedNeighbours(m.marks, 1)).toMatchObject({ before: { seq: 1 }, after: { seq: 3 } });
    expect(namedNeighbours(m.marks, 3)).toMatchObject({ before: { seq: 3 }, after: null });
    expect(markRadius(0)).toBeLessThan(markRadius(4));
    expect(markRadius(10_000)).toBe(12);
  });
});
