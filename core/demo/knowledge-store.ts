import { parseUuid } from '../canonical/index';
import { KNOWLEDGE_ASSERTION, KNOWLEDGE_CONFIDENCE_ASSESSMENT, KNOWLEDGE_EVIDENCE_LINK } from '../participants/index';
import { writeHex } from '../participants/columns';
import type { ParticipantChange } from '../project/index';
import type { Rng } from './rng';
import { Batches, grown, putFile, uuidOrder } from './graph-store';
import type { NodeStore } from './graph-store';
import type { StreamColumn } from './ipc-file-writer';

/** The demo's assertion predicates (index = the stored predicate byte). */
export const DEMO_PREDICATES = ['cites', 'authored_by', 'mentions', 'uses'] as const;

const STANCES = ['supports', 'refutes', 'mentions'] as const;
const METHODS = ['manual', 'model', 'aggregate'] as const;

/**
 * The demo's knowledge assertions as compact typed columns (about 45 bytes an assertion).
 *
 * Why: one JS string per UUID, literal and digest cell, held for the whole
 * build and re-encoded per publication, made the knowledge steps the demo's
 * peak at millions of records. Cells are derived from (index, batch, node
 * and event indices) when a participant is streamed, never stored as text.
 */
export class AssertionStore {
  /** Number of assertions (creation order). */
  length = 0;
  private uuids = new Uint8Array(0);
  private subject = new Uint32Array(0);
  private predicate = new Uint8Array(0);
  /** Object node index, or -1 for a literal object. */
  private object = new Int32Array(0);
  /** Event index, or -1 for none. */
  private event = new Int32Array(0);
  /** Each `add`: `asserted_at` is its time + index in the add; a literal object is `value <index in the add>`. */
  private readonly batches = new Batches();

  /**
   * Appends `count` assertions drawn from `rng`: per assertion its UUID, subject, predicate, whether the object is a literal,
   * the object node (unless literal) and the event (unless none).
   *
   * The draw order is the generator's contract: it fixes every byte of the demo for a seed.
   */
  add(rng: Rng, count: number, nodes: NodeStore, eventCount: number, t: bigint): void {
    const n = this.length + count;
    this.uuids = grown(this.uuids, n, (k) => new Uint8Array(k), 16);
    this.subject = grown(this.subject, n, (k) => new Uint32Array(k));
    this.predicate = grown(this.predicate, n, (k) => new Uint8Array(k));
    this.object = grown(this.object, n, (k) => new Int32Array(k));
    this.event = grown(this.event, n, (k) => new Int32Array(k));
    this.batches.push(this.length, t);
    for (let i = 0; i < count; i++) {
      const k = this.length;
      rng.uuidInto(this.uuids, k * 16);
      this.subject[k] = rng.int(nodes.length);
      this.predicate[k] = rng.int(DEMO_PREDICATES.length);
      const literal = rng.int(3) === 0;
      this.object[k] = literal ? -1 : rng.int(nodes.length);
      this.event[k] = eventCount === 0 || i % 4 === 3 ? -1 : rng.int(eventCount);
      this.length++;
    }
  }

  private fillUuid(k: number, out: Uint8Array, at: number): void {
    out.set(this.uuids.subarray(k * 16, k * 16 + 16), at);
  }

  /** Assertion indices in identity order (UUID bytes ascending). */
  identityOrder(): Uint32Array {
    return uuidOrder(this.uuids, this.length);
  }

  /**
   * The knowledge_assertion@1 participant streamed to `file` (rows in identity order).
   *
   * `events` are the provenance events' UUIDs (the indices drawn by `add`).
   */
  assertionChange(nodes: NodeStore, events: readonly string[], file: string): ParticipantChange {
    const order = this.identityOrder();
    const at = (r: number): number => order[r] as number;
    const eventBytes = events.map((e) => parseUuid(e));
    const columns: StreamColumn[] = [
      { kind: 'uuid', fill: (r, out, o) => this.fillUuid(at(r), out, o) },
      { kind: 'uuid', fill: (r, out, o) => nodes.fillUuid(this.subject[at(r)] as number, out, o) },
      { kind: 'utf8', get: (r) => DEMO_PREDICATES[this.predicate[at(r)] as number] as string },
      { kind: 'uuid', isNull: (r) => (this.object[at(r)] as number) < 0, fill: (r, out, o) => nodes.fillUuid(this.object[at(r)] as number, out, o) },
      {
        kind: 'utf8',
        get: (r) => {
          const k = at(r);
          return (this.object[k] as number) < 0 ? `value ${this.batches.offset(k)}` : null;
        },
      },
      { kind: 'uuid', isNull: (r) => (this.event[at(r)] as number) < 0, fill: (r, out, o) => out.set(eventBytes[this.event[at(r)] as number] as Uint8Array, o) },
      { kind: 'timestamp', get: (r) => this.batches.at(at(r)) },
    ];
    return putFile(KNOWLEDGE_ASSERTION, file, columns, this.length);
  }

  /**
   * The knowledge_evidence_link@1 participant of every assertion (one link each), streamed to `file`.
   *
   * Each link's digest is drawn from `rng` in creation order (eight 32-bit
   * draws rendered as hex, as the demo always has); stance, locator and
   * time follow the assertion's creation index.
   */
  evidenceChange(rng: Rng, t: bigint, file: string): ParticipantChange {
    const n = this.length;
    const digests = new Uint8Array(n * 32);
    for (let k = 0; k < n; k++) writeHex(digests, k * 32, digestHex(rng));
    const order = this.identityOrder();
    const at = (r: number): number => order[r] as number;
    const columns: StreamColumn[] = [
      { kind: 'uuid', fill: (r, out, o) => this.fillUuid(at(r), out, o) },
      { kind: 'uuid', width: 32, fill: (r, out, o) => out.set(digests.subarray(at(r) * 32, at(r) * 32 + 32), o) },
      { kind: 'utf8', get: (r) => STANCES[at(r) % 3] as string },
      {
        kind: 'utf8',
        get: (r) => {
          const k = at(r);
          return k % 2 === 0 ? `p. ${1 + (k % 300)}` : null;
        },
      },
      { kind: 'timestamp', get: (r) => t + BigInt(at(r)) },
    ];
    return putFile(KNOWLEDGE_EVIDENCE_LINK, file, columns, n);
  }

  /**
   * The knowledge_confidence_assessment@1 participant, one assessment per assertion, streamed to `file`.
   *
   * Draws every assessment UUID (creation order), then every confidence.
   */
  confidenceChange(rng: Rng, t: bigint, file: string): ParticipantChange {
    const n = this.length;
    const ids = new Uint8Array(n * 16);
    for (let k = 0; k < n; k++) rng.uuidInto(ids, k * 16);
    const confidence = new Float64Array(n);
    // In [0.50, 1.00]: the demo configuration's knowledge.min_confidence_percent is 50.
    for (let k = 0; k < n; k++) confidence[k] = Math.round(50 + rng.float() * 50) / 100;
    const order = uuidOrder(ids, n);
    const at = (r: number): number => order[r] as number;
    const columns: StreamColumn[] = [
      { kind: 'uuid', fill: (r, out, o) => out.set(ids.subarray(at(r) * 16, at(r) * 16 + 16), o) },
      { kind: 'uuid', fill: (r, out, o) => this.fillUuid(at(r), out, o) },
      { kind: 'float64', get: (r) => confidence[at(r)] as number },
      { kind: 'utf8', get: (r) => METHODS[at(r) % 3] as string },
      { kind: 'timestamp', get: (r) => t + BigInt(at(r)) },
    ];
    return putFile(KNOWLEDGE_CONFIDENCE_ASSESSMENT, file, columns, n);
  }
}

/**
 * A demo evidence digest as the demo has always rendered it: eight draws, each `(u32 | 1)` in hex padded to 8.
 *
 * `u32 | 1` is a signed 32-bit value, so a draw with the top bit set renders
 * with a leading `-`; `writeHex` skips it, as the encoder always did. Kept
 * as is: it fixes the demo's bytes for a seed.
 */
function digestHex(rng: Rng): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += (rng.u32() | 0x01).toString(16).padStart(8, '0');
  return s;
}
