import { parseUuid } from '../canonical/index';
import { PROVENANCE_LINEAGE } from '../participants/index';
import type { ParticipantChange } from '../project/index';
import { putFile, uuidOrder } from './graph-store';
import type { NodeStore } from './graph-store';
import type { StreamColumn } from './ipc-file-writer';

const NODE = 1;
const EVENT = 0;
const GENERATED = 0;
const USED = 1;

/**
 * The demo's lineage participant, streamed to `file`: per event i, it generated node (7i mod N), used node
 * (13i + 1 mod N) and, after the first, used event i - 1.
 *
 * Rows in identity order (event UUID bytes; within an event: kind `event`
 * before `node`, then entity UUID bytes, then role `generated` before
 * `used`), from typed row columns: no string per row. The three rows of
 * an event always differ (kind or role), and event UUIDs are distinct (the
 * event participant's identity), so no row is ever a duplicate.
 */
export function lineageChange(nodes: NodeStore, events: readonly string[], file: string): ParticipantChange {
  const count = events.length;
  const n = nodes.length;
  const ev = new Uint8Array(count * 16);
  events.forEach((e, i) => ev.set(parseUuid(e), i * 16));
  const rows = 3 * count - (count > 0 ? 1 : 0);
  const rowEvent = new Uint32Array(rows);
  const rowKind = new Uint8Array(rows);
  const rowEntity = new Uint32Array(rows);
  const rowRole = new Uint8Array(rows);
  // By identity keys (the UUIDs' order); the same node: `generated` (a) before `used` (b).
  const nodeFirst = (a: number, b: number): boolean => nodes.identityKey(a) <= nodes.identityKey(b);
  let w = 0;
  const push = (i: number, kind: number, entity: number, role: number): void => {
    rowEvent[w] = i;
    rowKind[w] = kind;
    rowEntity[w] = entity;
    rowRole[w] = role;
    w++;
  };
  for (const i of uuidOrder(ev, count)) {
    if (i > 0) push(i, EVENT, i - 1, USED);
    const generated = (i * 7) % n;
    const used = (i * 13 + 1) % n;
    if (nodeFirst(generated, used)) {
      push(i, NODE, generated, GENERATED);
      push(i, NODE, used, USED);
    } else {
      push(i, NODE, used, USED);
      push(i, NODE, generated, GENERATED);
    }
  }
  const columns: StreamColumn[] = [
    { kind: 'uuid', fill: (r, out, at) => out.set(ev.subarray((rowEvent[r] as number) * 16, (rowEvent[r] as number) * 16 + 16), at) },
    { kind: 'utf8', get: (r) => (rowKind[r] === NODE ? 'node' : 'event') },
    {
      kind: 'uuid',
      fill: (r, out, at) => {
        const k = rowEntity[r] as number;
        if (rowKind[r] === NODE) nodes.fillUuid(k, out, at);
        else out.set(ev.subarray(k * 16, k * 16 + 16), at);
      },
    },
    { kind: 'utf8', get: (r) => (rowRole[r] === GENERATED ? 'generated' : 'used') },
  ];
  return putFile(PROVENANCE_LINEAGE, file, columns, rows);
}
