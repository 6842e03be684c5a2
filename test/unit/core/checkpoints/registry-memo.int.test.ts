import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Table } from 'apache-arrow';
import { diagnose } from '../../../../core/api/doctor-operations';
import { CheckpointRegistryStore, RegistryMemos, registryObservationsForTesting } from '../../../../core/checkpoints/registry-store';
import { registryCatalog } from '../../../../core/participants/index';
import { createProject } from '../../../../core/project/index';
import { creating, deleting, removeRoot, tempRoot, uuidN, writerOf } from './registry-support';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeRoot(r);
});

function root(): string {
  const r = tempRoot();
  roots.push(r);
  return r;
}

/** A store that remembers what it read however young the files are (the racy-clean age is tested on its own below). */
const eager = (r: string, memos?: RegistryMemos): CheckpointRegistryStore => new CheckpointRegistryStore(r, { memoMinAgeNs: 0n, ...(memos === undefined ? {} : { memos }) });

/** Reads with `store`, returning the active names and how many full observations the read made. */
function readCounted(store: CheckpointRegistryStore): { names: string[]; observations: number } {
  const before = registryObservationsForTesting();
  const state = store.read();
  return { names: (state.doc?.active ?? []).map((a) => a.name), observations: registryObservationsForTesting() - before };
}

/** A registry holding `alpha` in `dir`, read once by an eager store: the memo now holds it. */
function remembered(dir = root()): { readonly dir: string; readonly store: CheckpointRegistryStore } {
  const store = eager(dir);
  store.mutate(writerOf(store.root), creating('alpha', uuidN(1)));
  expect(readCounted(store)).toEqual({ names: ['alpha'], observations: 1 });
  return { dir, store };
}

/** Moves a file's mtime (and with it its ctime): what any later write does, made deterministic for the test. */
function touchLater(file: string): void {
  const st = fs.statSync(file);
  fs.utimesSync(file, st.atime, new Date(st.mtimeMs + 5_000));
}

describe('the registry read memo (CheckpointRegistryStore.read)', () => {
  it('answers a read of an unchanged registry without reading it again, with the same state', () => {
    const { store } = remembered();
    const second = readCounted(store);
    expect(second).toEqual({ names: ['alpha'], observations: 0 });
    expect(store.read()).toBe(store.read());
  });

  it('serves another store sharing the same memos (one owner, e.g. a project session) from the memo', () => {
    const r = root();
    const memos = new RegistryMemos();
    eager(r, memos).mutate(writerOf(eager(r, memos).root), creating('alpha', uuidN(1)));
    expect(readCounted(eager(r, memos)).observations).toBe(1);
    expect(readCounted(eager(r, memos))).toEqual({ names: ['alpha'], observations: 0 });
  });

  it('never serves a store of another owner from this owner\'s memos: each reads the files itself', () => {
    const r = root();
    const mine = new RegistryMemos();
    eager(r, mine).mutate(writerOf(r), creating('alpha', uuidN(1)));
    expect(readCounted(eager(r, mine)).observations).toBe(1);
    expect(readCounted(eager(r, new RegistryMemos()))).toEqual({ names: ['alpha'], observations: 1 });
    expect(readCounted(eager(r))).toEqual({ names: ['alpha'], observations: 1 });
    mine.clear();
    expect(readCounted(eager(r, mine))).toEqual({ names: ['alpha'], observations: 1 });
  });

  it('sees a mutation made through another store (another process) at the next read', () => {
    const r = root();
    const reader = eager(r);
    const writer = new CheckpointRegistryStore(r);
    writer.mutate(writerOf(writer.root), creating('alpha', uuidN(1)));
    expect(readCounted(reader).names).toEqual(['alpha']);
    writer.mutate(writerOf(writer.root), creating('beta', uuidN(2)));
    expect(readCounted(reader)).toEqual({ names: ['alpha', 'beta'], observations: 1 });
    writer.mutate(writerOf(writer.root), deleting('alpha', uuidN(3)));
    expect(readCounted(reader)).toEqual({ names: ['beta'], observations: 1 });
  });

  it('refuses a registry changed in place behind its back (same size), with the stable code', () => {
    const { dir: r, store } = remembered();
    const file = path.join(r, 'checkpoints', 'registry.json');
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf('alpha');
    bytes[at] = 'A'.charCodeAt(0);
    fs.writeFileSync(file, bytes);
    touchLater(file);
    expect(() => store.read()).toThrowError(expect.objectContaining({ code: 'GF_CHECKPOINT_REGISTRY_CORRUPT' }));
  });

  it('observes the files again when an intent appears beside an unchanged pair', () => {
    const { dir: r, store } = remembered();
    fs.writeFileSync(path.join(r, 'checkpoints', 'registry.txn.json'), 'not an intent\n');
    expect(() => store.read()).toThrowError(expect.objectContaining({ code: 'GF_CHECKPOINT_REGISTRY_CORRUPT' }));
  });

  it('revalidates the files on request (gf doctor) even while the memo holds them unchanged', () => {
    const { store } = remembered();
    expect(readCounted(store).observations).toBe(0);
    const before = registryObservationsForTesting();
    expect(store.read({ revalidate: true }).doc?.active.map((a) => a.name)).toEqual(['alpha']);
    expect(registryObservationsForTesting() - before).toBe(1);
  });

  it('gf doctor reads the registry bytes even while this process remembers them unchanged', async () => {
    const r = root();
    const ws = path.join(r, 'ws');
    await createProject<Table>(ws, { catalog: registryCatalog });
    const { store } = remembered(ws);
    expect(readCounted(store).observations).toBe(0);
    const before = registryObservationsForTesting();
    await diagnose(ws);
    expect(registryObservationsForTesting() - before).toBe(1);
  });

  it('never remembers a registry written within the racy-clean age: each read of it observes the files', () => {
    const r = root();
    const store = new CheckpointRegistryStore(r, { memoMinAgeNs: 3_600n * 1_000_000_000n });
    store.mutate(writerOf(store.root), creating('alpha', uuidN(1)));
    expect(readCounted(store).observations).toBe(1);
    expect(readCounted(store).observations).toBe(1);
  });
});
