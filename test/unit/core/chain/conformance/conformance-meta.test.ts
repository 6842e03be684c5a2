/**
 * AC-17: the conformance suite is itself mutation-tested.
 *
 * For every case, a deliberately broken adapter (the in-memory adapter
 * wrapped with one defect, or a loose re-implementation where a defect cannot
 * be expressed by wrapping) is fed to the suite programmatically; the case
 * must fail with a ConformanceFailure naming its invariant. The same case must
 * pass on the correct adapter (control), so a failure is the defect's doing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { canonicalEventBytes } from '../../../../../core/chain/canonical-event';
import { parseTransitionEvent, toMicrosIso, type TransitionEvent, type WorkflowId } from '../../../../../core/chain/event';
import { GENESIS, nextHead, type ChainHead } from '../../../../../core/chain/head';
import { InMemoryChainStore } from '../../../../../core/chain/memory/memory-store';
import type { ChainStoreWithReaders, Clock, PersistedRow } from '../../../../../core/chain/port';
import { sanitizeEvent } from '../../../../../core/chain/sanitize';
import { decodeEventBytes, prepareAppend } from '../../../../../core/chain/store-support';
import { WorkflowMutex } from '../../../../../core/chain/workflow-mutex';
import { CONFORMANCE_CASES, ConformanceFailure, runConformanceCase, type ChainConformanceInitializer } from '.';
import { collect, turns } from './support';

type Store = ChainStoreWithReaders & { readonly tamperPersistedRow: InMemoryChainStore['tamperPersistedRow'] };

function wrap(inner: InMemoryChainStore, patch: (inner: InMemoryChainStore) => Partial<ChainStoreWithReaders>): Store {
  const base: Store = {
    append: (e) => inner.append(e),
    readAllForWorkflow: (id) => inner.readAllForWorkflow(id),
    tailChainHead: (id) => inner.tailChainHead(id),
    lock: (id, fn) => inner.lock(id, fn),
    close: () => inner.close(),
    listWorkflows: () => inner.listWorkflows(),
    readPersistedRows: (id) => inner.readPersistedRows(id),
    tamperPersistedRow: (id, seq, f) => inner.tamperPersistedRow(id, seq, f),
  };
  return Object.freeze({ ...base, ...patch(inner) });
}

/**
 * The defect of a transactional `lock`: appends made inside `fn` resolve at once but are only written when `fn`
 * resolves (a rejection, or a crash before `fn` settles, loses them), as SQLite's lock once did.
 */
function transactionalLock(clock: Clock): Store {
  const pending = new AsyncLocalStorage<TransitionEvent[]>();
  return wrap(new InMemoryChainStore({ clock }), (inner) => ({
    append: async (e) => {
      const buffer = pending.getStore();
      if (buffer === undefined) return inner.append(e);
      buffer.push(e);
      let head = await inner.tailChainHead(e.workflow_id);
      for (const b of buffer) head = nextHead(head, prepareAppend(b).bytes);
      return head;
    },
    lock: (id, fn) =>
      inner.lock(id, async () => {
        const buffer: TransitionEvent[] = [];
        const value = await pending.run(buffer, fn);
        for (const b of buffer) await inner.append(b);
        return value;
      }),
  }));
}

interface LooseFlaws {
  readonly noBoundary?: boolean;
  readonly noCap?: boolean;
  readonly noSanitize?: boolean;
  readonly systemClock?: boolean;
  readonly noValidation?: boolean;
  readonly racyAppend?: boolean;
}

/** A loose re-implementation for defects that wrapping cannot express (skipped checks). */
function looseStore(clock: Clock, flaws: LooseFlaws): Store {
  const rows = new Map<WorkflowId, PersistedRow[]>();
  const mutex = new WorkflowMutex();
  const write = async (event: TransitionEvent): Promise<ChainHead> => {
    let e = event;
    let bytes: Uint8Array;
    if (flaws.noBoundary === true || flaws.noCap === true || flaws.noSanitize === true || flaws.noValidation === true) {
      if (flaws.noValidation !== true) e = parseTransitionEvent(e);
      if (flaws.noSanitize !== true) e = sanitizeEvent(e);
      bytes = canonicalEventBytes(e);
      if (flaws.noBoundary !== true && e.next_state_id === 'needs_plan') return prepareAppend(e).event as never;
      if (flaws.noCap !== true && bytes.byteLength > 65_536) return prepareAppend(e).event as never;
    } else {
      const p = prepareAppend(e);
      e = p.event;
      bytes = p.bytes;
    }
    const list = rows.get(e.workflow_id) ?? [];
    rows.set(e.workflow_id, list);
    const prior = (list.at(-1)?.next_head ?? GENESIS) as ChainHead;
    if (flaws.racyAppend === true) await turns(1);
    const next = nextHead(prior, bytes);
    const now = flaws.systemClock === true ? new Date() : clock();
    list.push({ sequence: list.length + 1, transition_id: e.transition_id, prior_head: prior, next_head: next, event_bytes: bytes, written_at: toMicrosIso(now) });
    return next;
  };
  const store: Store = {
    append: (e) => (flaws.racyAppend === true ? write(e) : mutex.run(e.workflow_id, () => write(e))),
    async *readAllForWorkflow(id) {
      for (const r of rows.get(id) ?? []) yield decodeEventBytes(r.event_bytes);
    },
    tailChainHead: async (id) => (rows.get(id)?.at(-1)?.next_head ?? GENESIS) as ChainHead,
    lock: (id, fn) => mutex.run(id, fn),
    close: async () => undefined,
    listWorkflows: async () => [...rows.keys()].sort(),
    async *readPersistedRows(id) {
      yield* rows.get(id) ?? [];
    },
    tamperPersistedRow(id, seq, f) {
      const list = rows.get(id) ?? [];
      const row = list[seq - 1];
      if (row !== undefined) list[seq - 1] = { ...row, ...f };
    },
  };
  return store;
}

let globalGate: Promise<void> = Promise.resolve();

/** One defect per case id: the broken adapter that case must catch. */
const DEFECTS: Readonly<Record<string, (clock: Clock) => Store>> = {
  'chain-forward-extension': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      append: async (e) => {
        await inner.append(e);
        return nextHead(GENESIS, prepareAppend(e).bytes); // forgets the prior head
      },
    })),
  stability: (clock) => {
    let n = 0;
    return wrap(new InMemoryChainStore({ clock }), (inner) => ({
      tailChainHead: async (id) => ((n += 1) % 2 === 0 ? GENESIS : inner.tailChainHead(id)),
    }));
  },
  'cross-workflow-isolation': (clock) => {
    let last: WorkflowId | undefined;
    return wrap(new InMemoryChainStore({ clock }), (inner) => ({
      append: async (e) => {
        last = e.workflow_id;
        return inner.append(e);
      },
      tailChainHead: async (id) => inner.tailChainHead(last ?? id), // one global head
    }));
  },
  'append-order-reads': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      async *readAllForWorkflow(id) {
        const all = await collect(inner.readAllForWorkflow(id));
        yield* all.sort((a, b) => (a.transition_id < b.transition_id ? -1 : 1)); // "ULIDs are monotonic"
      },
    })),
  'cross-workflow-filtering': (clock) => {
    const seen: WorkflowId[] = [];
    return wrap(new InMemoryChainStore({ clock }), (inner) => ({
      append: async (e) => {
        if (!seen.includes(e.workflow_id)) seen.push(e.workflow_id);
        return inner.append(e);
      },
      async *readAllForWorkflow() {
        for (const w of seen) yield* inner.readAllForWorkflow(w); // no filter
      },
    }));
  },
  'boundary-only-writes': (clock) => looseStore(clock, { noBoundary: true }),
  'payload-cap': (clock) => looseStore(clock, { noCap: true }),
  sanitizing: (clock) => looseStore(clock, { noSanitize: true }),
  'clock-injection': (clock) => looseStore(clock, { systemClock: true }),
  'rejects-invalid-events': (clock) => looseStore(clock, { noValidation: true }),
  'evidence-digest-only': (clock) => looseStore(clock, { noValidation: true }),
  'detection-substrate': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      tailChainHead: async (id) => {
        let h = GENESIS; // "helpful" recomputation
        for await (const r of inner.readPersistedRows(id)) h = nextHead(h, r.event_bytes);
        return h;
      },
    })),
  'lock-exclusion': (clock) => wrap(new InMemoryChainStore({ clock }), () => ({ lock: async (_id, fn) => fn() })),
  'lock-result-and-release': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      lock: async (id, fn) => inner.lock(id, fn).catch(() => undefined as never), // swallows fn's rejection
    })),
  'lock-keeps-acknowledged-appends': (clock) => transactionalLock(clock),
  'lock-append-survives-crash': (clock) => transactionalLock(clock),
  'lock-per-workflow': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => {
      const global = <T,>(fn: () => Promise<T>): Promise<T> => {
        const prev = globalGate;
        let done: () => void = () => undefined;
        globalGate = new Promise<void>((r) => {
          done = r;
        });
        return prev.then(fn).finally(done);
      };
      return { lock: (id, fn) => global(() => inner.lock(id, fn)), append: (e) => global(() => inner.append(e)) };
    }),
  'concurrent-appends-linear': (clock) => looseStore(clock, { racyAppend: true }),
  'close-releases': (clock) => wrap(new InMemoryChainStore({ clock }), () => ({ close: async () => undefined })),
  // An unfrozen facade over a correct store: the instance itself accepts stray attributes.
  'instance-frozen': (clock) => ({ ...wrap(new InMemoryChainStore({ clock }), () => ({})) }),
  'list-workflows': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({ listWorkflows: async () => [...(await inner.listWorkflows())].reverse() })),
  'persisted-rows': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      async *readPersistedRows(id) {
        for await (const r of inner.readPersistedRows(id)) yield { ...r, sequence: r.sequence - 1 };
      },
    })),
  'verifier-classifies-damage': (clock) =>
    wrap(new InMemoryChainStore({ clock }), (inner) => ({
      async *readPersistedRows(id) {
        for await (const r of inner.readPersistedRows(id)) {
          try {
            decodeEventBytes(r.event_bytes);
            yield r;
          } catch (_e) {
            // "repairs" torn rows by hiding them
          }
        }
      },
    })),
};

const tamper: ChainConformanceInitializer<Store>['tamper'] = async (store, id, seq, fields) => store.tamperPersistedRow(id, seq, fields);

function initWith(name: string, make: (clock: Clock) => Store): ChainConformanceInitializer<Store> {
  return { name, numRuns: 6, create: async ({ clock }) => make(clock), tamper };
}

describe('AC-17 conformance meta-test: a broken adapter fails the suite, naming the invariant', () => {
  it('has one defect for every conformance case', () => {
    expect(Object.keys(DEFECTS).sort()).toEqual(CONFORMANCE_CASES.map((c) => c.id).sort());
  });

  for (const c of CONFORMANCE_CASES) {
    it(`${c.id}: passes on the correct adapter, fails on the broken one`, async () => {
      await runConformanceCase(initWith('in-memory', (clock) => wrap(new InMemoryChainStore({ clock }), () => ({}))), c);
      const make = DEFECTS[c.id];
      expect(make).toBeDefined();
      let failure: unknown;
      try {
        await runConformanceCase(initWith(`broken:${c.id}`, make as (clock: Clock) => Store), c);
      } catch (e) {
        failure = e;
      }
      expect(failure).toBeInstanceOf(ConformanceFailure);
      expect((failure as ConformanceFailure).caseId).toBe(c.id);
      expect((failure as ConformanceFailure).message).toContain(`invariant violated: ${c.invariant}`);
    });
  }
});
