import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../core/canonical';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { encodeChecksum, encodeIntent, tempNames } from '../../../../core/checkpoints/registry-format';
import type { RegistryIntent } from '../../../../core/checkpoints/registry-format';
import { isPlan } from '../../../../core/checkpoints/registry-core';
import type { RegistryPlan } from '../../../../core/checkpoints/registry-core';
import { GfError } from '../../../../core/errors';
import { creating, removeRoot, tempRoot, uuidN, writerOf } from './registry-support';

const TXN = '22222222-3333-4444-8555-666666666666';
const T = tempNames(TXN);

interface Fixture {
  readonly root: string;
  readonly dir: string;
  readonly store: CheckpointRegistryStore;
  readonly prevBytes: Uint8Array | null;
  readonly next: RegistryPlan;
  readonly intent: RegistryIntent;
}

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeRoot(r);
});

/** A real project directory holding the previous revision (or nothing) and the next plan, not yet staged. */
function fixture(first: boolean): Fixture {
  const root = tempRoot();
  roots.push(root);
  const store = new CheckpointRegistryStore(root);
  const dir = path.join(root, 'checkpoints');
  if (!first) store.mutate(writerOf(store.root), creating('prev', uuidN(1)));
  else fs.mkdirSync(dir);
  // The lock file is made by the first mutation; a first-create fixture makes it with a create+remove cycle
  // (and removes the marker that a committed pair leaves, so the workspace looks as if none was ever committed).
  if (first) {
    store.mutate(writerOf(store.root), creating('tmp', uuidN(99)));
    for (const f of ['registry.json', 'registry.json.sha256']) fs.unlinkSync(path.join(dir, f));
    fs.unlinkSync(path.join(root, 'locks', 'checkpoints.created'));
  }
  const state = store.read();
  const plan = creating('next', uuidN(2))(state.doc);
  if (!isPlan(plan)) throw new Error('replay');
  const prevBytes = first ? null : new Uint8Array(fs.readFileSync(path.join(dir, 'registry.json')));
  const intent: RegistryIntent = {
    transaction_uuid: TXN,
    previous_revision: first ? null : 1,
    previous_sha256: prevBytes === null ? null : sha256Hex(prevBytes),
    next_revision: first ? 1 : 2,
    next_sha256: sha256Hex(plan.bytes),
    registry_temp: T.registryTemp,
    checksum_temp: T.checksumTemp,
  };
  return { root, dir, store, prevBytes, next: plan, intent };
}

function put(f: Fixture, name: string, bytes: Uint8Array | string): void {
  fs.writeFileSync(path.join(f.dir, name), bytes);
}
function rm(f: Fixture, name: string): void {
  fs.rmSync(path.join(f.dir, name), { force: true });
}
function entries(f: Fixture): string[] {
  return fs.readdirSync(f.dir).sort();
}
function snapshot(f: Fixture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of entries(f)) out[n] = fs.readFileSync(path.join(f.dir, n)).toString('hex');
  return out;
}
function stageIntentAndTemps(f: Fixture): void {
  put(f, T.registryTemp, f.next.bytes);
  put(f, T.checksumTemp, encodeChecksum(f.next.bytes));
  put(f, 'registry.txn.json', encodeIntent(f.intent));
}
function installNextRegistry(f: Fixture): void {
  fs.renameSync(path.join(f.dir, T.registryTemp), path.join(f.dir, 'registry.json'));
}
function installNextChecksum(f: Fixture): void {
  fs.renameSync(path.join(f.dir, T.checksumTemp), path.join(f.dir, 'registry.json.sha256'));
}
function names(f: Fixture): string[] {
  return (f.store.read().doc?.active ?? []).map((r) => r.name);
}
function expectCorruptUntouched(f: Fixture): void {
  const before = snapshot(f);
  for (const op of [() => f.store.read(), () => f.store.recover(writerOf(f.store.root)), () => f.store.mutate(writerOf(f.store.root), creating('other', uuidN(3)))]) {
    let code = 'accepted';
    try {
      op();
    } catch (e) {
      code = (e as GfError).code;
    }
    expect(code).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
  }
  expect(snapshot(f)).toEqual(before);
}

describe('ADR-0014 recovery state table, each row built on disk', () => {
  it('row 1: no intent, valid previous or next pair (or none) → accepted; stray temporaries swept', () => {
    const f = fixture(false);
    put(f, T.registryTemp, f.next.bytes); // a crash before the intent existed
    expect(names(f)).toEqual(['prev']);
    expect(f.store.recover(writerOf(f.store.root)).revision).toBe(1);
    expect(entries(f)).toEqual(['registry.json', 'registry.json.sha256']);
    put(f, 'registry.json', f.next.bytes);
    put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes));
    expect(names(f)).toEqual(['next', 'prev']);
    const g = fixture(true);
    expect(g.store.read()).toEqual({ doc: null, sha256: null, revision: 0 });
  });

  it('row 2: no intent, partial or mismatched pair → corrupt, nothing changes', () => {
    const f = fixture(false);
    rm(f, 'registry.json.sha256');
    expectCorruptUntouched(f);
    put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes));
    expectCorruptUntouched(f);
    rm(f, 'registry.json');
    expectCorruptUntouched(f);
  });

  it('row 3: intent, valid previous, valid staged next → previous retained; intent and temps removed', () => {
    const f = fixture(false);
    stageIntentAndTemps(f);
    expect(names(f)).toEqual(['prev']); // readers see previous without acting
    expect(entries(f)).toContain('registry.txn.json');
    expect(f.store.recover(writerOf(f.store.root)).revision).toBe(1);
    expect(entries(f)).toEqual(['registry.json', 'registry.json.sha256']);
    expect(new Uint8Array(fs.readFileSync(path.join(f.dir, 'registry.json')))).toEqual(f.prevBytes);
  });

  it('row 4: intent, no installed pair and no previous declared, valid staged next → absent retained', () => {
    const f = fixture(true);
    stageIntentAndTemps(f);
    expect(f.store.read().doc).toBeNull();
    expect(f.store.recover(writerOf(f.store.root)).doc).toBeNull();
    expect(entries(f)).toEqual([]);
  });

  it('row 5: intent, next registry with previous or missing checksum, valid staged checksum → next checksum installed', () => {
    for (const variant of ['previous', 'missing', 'first-create'] as const) {
      const f = fixture(variant === 'first-create');
      stageIntentAndTemps(f);
      installNextRegistry(f);
      if (variant === 'missing') rm(f, 'registry.json.sha256');
      expect(names(f)).toEqual(variant === 'first-create' ? ['next'] : ['next', 'prev']);
      expect(f.store.recover(writerOf(f.store.root)).revision).toBe(f.intent.next_revision);
      expect(entries(f)).toEqual(['registry.json', 'registry.json.sha256']);
      expect(fs.readFileSync(path.join(f.dir, 'registry.json.sha256'), 'utf8')).toBe(`${f.intent.next_sha256}\n`);
    }
  });

  it('row 6: intent, valid next pair, staged checksum absent or valid → next accepted; intent removed', () => {
    for (const keepTemp of [false, true]) {
      const f = fixture(false);
      stageIntentAndTemps(f);
      installNextRegistry(f);
      if (keepTemp) put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes));
      else installNextChecksum(f);
      expect(names(f)).toEqual(['next', 'prev']);
      expect(f.store.recover(writerOf(f.store.root)).revision).toBe(2);
      expect(entries(f)).toEqual(['registry.json', 'registry.json.sha256']);
    }
  });

  it('row 7: intent with any other combination → corrupt, nothing changes', () => {
    const cases: Array<[string, (f: Fixture) => void, boolean?]> = [
      ['previous installed, staged registry missing', (f) => { stageIntentAndTemps(f); rm(f, T.registryTemp); }],
      ['previous installed, staged checksum missing', (f) => { stageIntentAndTemps(f); rm(f, T.checksumTemp); }],
      ['previous installed, staged registry altered', (f) => { stageIntentAndTemps(f); put(f, T.registryTemp, f.prevBytes!); }],
      ['previous installed, previous checksum wrong', (f) => { stageIntentAndTemps(f); put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes)); }],
      ['previous declared but pair absent', (f) => { stageIntentAndTemps(f); rm(f, 'registry.json'); rm(f, 'registry.json.sha256'); }],
      ['next registry, checksum neither previous nor missing', (f) => { stageIntentAndTemps(f); installNextRegistry(f); put(f, 'registry.json.sha256', `${'0'.repeat(64)}\n`); }],
      ['next registry, previous checksum, staged checksum missing', (f) => { stageIntentAndTemps(f); installNextRegistry(f); rm(f, T.checksumTemp); }],
      ['next pair, staged checksum invalid', (f) => { stageIntentAndTemps(f); installNextRegistry(f); put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes)); put(f, T.checksumTemp, `${'1'.repeat(64)}\n`); }],
      ['installed registry is neither', (f) => { stageIntentAndTemps(f); put(f, 'registry.json', '{}\n'); }],
      ['intent not canonical', (f) => { stageIntentAndTemps(f); put(f, 'registry.txn.json', `${new TextDecoder().decode(encodeIntent(f.intent)).replace(':', ': ')}`); }],
      ['intent truncated', (f) => { stageIntentAndTemps(f); put(f, 'registry.txn.json', encodeIntent(f.intent).subarray(0, 40)); }],
      ['intent as a symlink', (f) => { stageIntentAndTemps(f); const p = path.join(f.dir, 'registry.txn.json'); fs.renameSync(p, `${p}.x`); fs.symlinkSync(`${p}.x`, p); }],
      ['registry hard-linked', (f) => { fs.linkSync(path.join(f.dir, 'registry.json'), path.join(f.root, 'elsewhere')); }],
      ['first create, registry absent, checksum present', (f) => { stageIntentAndTemps(f); put(f, 'registry.json.sha256', encodeChecksum(f.next.bytes)); }, true],
    ];
    for (const [label, build, first] of cases) {
      const f = fixture(first === true);
      build(f);
      try {
        expectCorruptUntouched(f);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
  });
});
