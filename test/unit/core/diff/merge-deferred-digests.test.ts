import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffAllRecords, diffAllRecordsAsync } from '../../../../core/diff/page-diff';
import { diffTuning } from '../../../../core/diff/tuning';
import { DeferredDigests, FP_FROM } from '../../../../core/diff/merge-deferred-digests';
import { ChangeList, KIND_REMOVED } from '../../../../core/diff/changes-list';
import { DigestPool, digestSlices } from '../../../../core/diff/merge-digest-pool';
import { familyByKey } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { model, pairArb, participant, rowsOf } from './block-model';
import { endpoint, rangedEndpoint, uuidOf } from './diff-support';

// Fingerprints of a whole record diff hashed on the digest pool's worker
// thread (in batches, settled at the end) give exactly the rows of inline
// hashing and of the model, including `modified` candidates whose bytes
// differ but whose canonical values agree (they must be dropped).

// Small batches and windows come in as a frozen tuning (DiffEngineOptions), never by mutating the engine.

function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function slicesArb(): fc.Arbitrary<{ bytes: Uint8Array; ends: Uint32Array }> {
  return fc.array(fc.uint8Array({ maxLength: 700 }), { minLength: 1, maxLength: 40 }).map((parts) => {
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    const ends = new Uint32Array(parts.length);
    let at = 0;
    parts.forEach((p, i) => {
      bytes.set(p, at);
      at += p.length;
      ends[i] = at;
    });
    return { bytes, ends };
  });
}

function expectDigests(out: Uint8Array, bytes: Uint8Array, ends: Uint32Array): void {
  let s = 0;
  ends.forEach((e, i) => {
    expect(Buffer.from(out.subarray(i * 32, i * 32 + 32)).toString('hex')).toBe(sha(bytes.subarray(s, e)));
    s = e;
  });
}

describe('digest pool', () => {
  it('hashes every slice of a batch on its worker, in order', async () => {
    const pool = new DigestPool();
    try {
      await fc.assert(
        fc.asyncProperty(slicesArb(), async ({ bytes, ends }) => {
          expectDigests(await pool.digest(bytes.slice(), ends.slice()), bytes, ends);
          expectDigests(digestSlices(bytes, ends), bytes, ends);
        }),
        { numRuns: 25 },
      );
    } finally {
      await pool.close();
    }
  });

  it('hands a finished batch\'s buffer back once for reuse (no buffer per batch left to the collector); digests stay exact', async () => {
    const pool = new DigestPool();
    try {
      const bytes = new Uint8Array(4096).map((_, i) => i & 0xff);
      const ends = Uint32Array.from([100, 1000, 3000]);
      expect(pool.spare(1)).toBeUndefined();
      expectDigests(await pool.digest(bytes.slice(), ends.slice()), bytes, ends);
      expect(pool.spare(8192)).toBeUndefined();
      const back = pool.spare(4096);
      expect(back?.byteLength).toBe(4096);
      expect(pool.spare(1)).toBeUndefined();
      // The returned buffer is the caller's: a batch built in it hashes exactly.
      (back as Uint8Array).set(bytes.map((b) => b ^ 0x5a));
      expectDigests(await pool.digest(back as Uint8Array, ends.slice()), bytes.map((b) => b ^ 0x5a), ends);
    } finally {
      await pool.close();
    }
  });

  it('a worker that dies rejects the batches it held (DigestPoolError); later batches are hashed on the caller thread', async () => {
    const pool = new DigestPool(`require('node:worker_threads').parentPort.on('message', () => process.exit(3));`);
    try {
      const batches = fc.sample(slicesArb(), 4);
      const held = await Promise.allSettled(batches.map(({ bytes, ends }) => pool.digest(bytes.slice(), ends.slice())));
      expect(held.map((r) => (r.status === 'rejected' ? (r.reason as Error).name : 'fulfilled'))).toEqual(['DigestPoolError', 'DigestPoolError', 'DigestPoolError', 'DigestPoolError']);
      const again = fc.sample(slicesArb(), 1)[0] as { bytes: Uint8Array; ends: Uint32Array };
      expectDigests(await pool.digest(again.bytes.slice(), again.ends.slice()), again.bytes, again.ends);
    } finally {
      await pool.close();
    }
  });
});

describe('deferred fingerprints of a whole record diff', () => {
  for (const key of ['graph/node', 'knowledge/confidence_assessment']) {
    const family = familyByKey(key) as RecordFamily;
    it(`equal inline hashing and the model, batches of any size, through windows: ${key}`, async () => {
      await fc.assert(
        fc.asyncProperty(pairArb(family, 200), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 2, max: 80 }), async ({ from, to, layout }, batch, max) => {
          const tuning = diffTuning({ deferred: { items: batch, inFlight: 1 + (batch % 3) }, windowRows: { first: 1, max } });
          const a = rangedEndpoint(uuidOf('A'), [participant(family, from, 0)], []);
          const b = rangedEndpoint(uuidOf('B'), [participant(family, to, layout)], []);
          const inline = rowsOf(diffAllRecords(endpoint(uuidOf('A'), [participant(family, from, 0)]), endpoint(uuidOf('B'), [participant(family, to, layout)]), 'all'));
          const deferred = rowsOf(await diffAllRecordsAsync(a, b, 'all', { tuning }));
          expect(deferred).toEqual(inline);
          expect(deferred).toEqual(model(family, from, to));
        }),
        { numRuns: 15 },
      );
    });
  }

  it('a digest worker that dies mid-diff costs time, not rows: the family is diffed again with inline hashing', async () => {
    const family = familyByKey('graph/node') as RecordFamily;
    const dying = new DigestPool(`require('node:worker_threads').parentPort.on('message', () => process.exit(3));`);
    try {
      await fc.assert(
        fc.asyncProperty(pairArb(family, 200), async ({ from, to }) => {
          const tuning = diffTuning({ deferred: { items: 2 }, pool: dying });
          await dying.close(); // a fresh worker each run, which dies on its first batch
          const a = rangedEndpoint(uuidOf('A'), [participant(family, from, 0)], []);
          const b = rangedEndpoint(uuidOf('B'), [participant(family, to, 0)], []);
          expect(rowsOf(await diffAllRecordsAsync(a, b, 'all', { tuning }))).toEqual(model(family, from, to));
        }),
        { numRuns: 6 },
      );
    } finally {
      await dying.close();
    }
  });

  it('backpressure: past the allowed batches in flight the merge waits for the oldest, in order', async () => {
    // A pool that answers only when told to.
    const calls: { bytes: Uint8Array; ends: Uint32Array; resolve: (d: Uint8Array) => void; promise: Promise<Uint8Array> }[] = [];
    const pool = {
      digest(bytes: Uint8Array, ends: Uint32Array): Promise<Uint8Array> {
        let resolve!: (d: Uint8Array) => void;
        const promise = new Promise<Uint8Array>((r) => (resolve = r));
        calls.push({ bytes: bytes.slice(), ends: ends.slice(), resolve, promise });
        return promise;
      },
    };
    const d = new DeferredDigests(pool, 1, 2);
    const list = new ChangeList('graph', 'node', false);
    const pre = Array.from({ length: 5 }, (_, i) => new TextEncoder().encode(`preimage ${i}`));
    for (const p of pre) d.add(p, list.push(KIND_REMOVED), FP_FROM);
    expect([calls.length, d.inFlight]).toEqual([5, 5]);
    // Each wait is on the oldest batch (awaiting any other would never settle here): 5 in flight, 2 allowed.
    const steps = d.throttle();
    let waits = 0;
    for (let r = steps.next(); r.done !== true; r = steps.next()) {
      const effect = r.value as { effect: string; promise: Promise<void> };
      expect(effect.effect).toBe('await');
      const oldest = calls[waits]!;
      oldest.resolve(digestSlices(oldest.bytes, oldest.ends));
      await effect.promise;
      waits++;
      expect(d.inFlight).toBe(5 - waits);
    }
    expect(waits).toBe(3);
    for (const c of calls.slice(3)) c.resolve(digestSlices(c.bytes, c.ends));
    const settle = d.settle(list);
    let r = settle.next();
    while (r.done !== true) {
      await (r.value as { promise: Promise<void> }).promise;
      r = settle.next();
    }
    expect(r.value).toBe(true);
    pre.forEach((p, i) => expect(Buffer.from(list.fromFp.subarray(i * 32, i * 32 + 32)).toString('hex')).toBe(sha(p)));
  });
});
