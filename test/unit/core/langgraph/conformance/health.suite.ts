// Port operation `health()`: three frozen fields, pool counters, a monotonic write age.
import { CHECKPOINTER_HEALTH_FIELDS } from '../../../../../core/langgraph';
import { putChain, sampleCheckpoint } from '../langgraph-support';
import { check, type PortCase } from './types';

export const HEALTH_CASES: readonly PortCase[] = [
  {
    id: 'health.shape',
    title: 'health() is a frozen record of exactly pool_in_use, pool_idle and last_write_age_seconds',
    async run({ init }) {
      const { adapter } = await init.create();
      for (const h of [adapter.health(), (await adapter.saver(), adapter.health())]) {
        check(JSON.stringify(Object.keys(h)) === JSON.stringify(CHECKPOINTER_HEALTH_FIELDS), 'health.shape', `fields ${Object.keys(h).join(', ')}`);
        check(Object.isFrozen(h), 'health.shape', 'the record is not frozen');
        check(Object.values(h).every((v) => typeof v === 'number' && !Number.isNaN(v)), 'health.shape', 'a field is not a number');
      }
    },
  },
  {
    id: 'health.pool_counters',
    title: "pool_in_use is the connections callers hold, as the pool's own acquire/release events count them, while writes are in flight; health() checks none out",
    async run({ init, freshThread }) {
      const port = await init.create();
      const saver = await port.adapter.saver();
      // Eight writers at once (more than the pool has connections); health() is called between their I/O steps.
      let done = false;
      const writes = Promise.all(Array.from({ length: 8 }, (_, i) => putChain(saver, freshThread(`busy${i}`), 2))).finally(() => {
        done = true;
      });
      let polls = 0;
      let busy = 0;
      // A failed check ends the loop early: the writes still finish before the port closes (no write left on a closed database).
      try {
      while (!done) {
        const h = port.adapter.health();
        check(h.pool_in_use === port.checkedOut(), 'health.pool_counters', `pool_in_use ${h.pool_in_use}, but the pool's events count ${port.checkedOut()} checked out`);
        check(h.pool_idle === port.poolIdle(), 'health.pool_counters', `pool_idle ${h.pool_idle}, but the pool has ${port.poolIdle()} idle`);
        polls += 1;
        if (h.pool_in_use > 0) busy += 1;
        await new Promise<void>((resolve) => setImmediate(resolve)); // yield to the writers' I/O (not a timed wait)
      }
      } finally {
        await writes.catch(() => undefined);
      }
      await writes;
      check(!port.pooled || busy > 0, 'health.pool_counters', `no health call of ${polls} saw a connection in use while writes were in flight`);
      const after = await Promise.all(Array.from({ length: 10 }, async () => port.adapter.health()));
      check(after.every((h) => h.pool_in_use === 0 && h.pool_in_use === port.checkedOut()), 'health.pool_counters', 'health() found a connection in use with no workload');
    },
  },
  {
    id: 'health.never_written',
    title: 'last_write_age_seconds is Infinity before the first successful write, and a failed write changes nothing',
    async run({ init }) {
      const { adapter } = await init.create();
      const saver = await adapter.saver();
      check(adapter.health().last_write_age_seconds === Number.POSITIVE_INFINITY, 'health.never_written', 'not Infinity before any write');
      await saver.put({}, sampleCheckpoint(0), { source: 'loop', step: 0, parents: {} }, {}).catch(() => undefined);
      check(adapter.health().last_write_age_seconds === Number.POSITIVE_INFINITY, 'health.never_written', 'a failed write counted as a write');
    },
  },
  {
    id: 'health.write_age',
    title: 'after a put, and after a putWrites, last_write_age_seconds is between 0 and 1 and grows monotonically',
    async run({ init, freshThread }) {
      const { adapter } = await init.create();
      const config = await putChain(await adapter.saver(), freshThread('age'), 1);
      const a = adapter.health().last_write_age_seconds;
      check(a >= 0 && a <= 1, 'health.write_age', `age ${a} after a put`);
      const b = adapter.health().last_write_age_seconds;
      check(b >= a, 'health.write_age', `age went back from ${a} to ${b}`);
      const other = await init.create();
      await (await other.adapter.saver()).putWrites(config, [['notes', 'pending']], 'task-1');
      const c = other.adapter.health().last_write_age_seconds;
      check(c >= 0 && c <= 1, 'health.write_age', `age ${c} after a putWrites`);
    },
  },
];
