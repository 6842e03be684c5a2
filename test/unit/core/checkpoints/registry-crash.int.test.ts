import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { REGISTRY_FAILPOINTS, armRegistryFailpointForTesting } from '../../../../core/checkpoints/failpoints';
import type { RegistryFailpoint } from '../../../../core/checkpoints/failpoints';
import { GfError } from '../../../../core/errors';
import { creating, removeRoot, tempRoot, uuidN } from './registry-support';

const here = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(here, 'fixtures', 'registry-writer.ts');

/** Failpoints at which the next revision is already visible (from the registry.json rename on). */
const NEXT_FROM = REGISTRY_FAILPOINTS.indexOf('checkpoint.registry.after_replace');

function expectedRevision(fp: RegistryFailpoint, previous: number): number {
  return REGISTRY_FAILPOINTS.indexOf(fp) >= NEXT_FROM ? previous + 1 : previous;
}

function runWriter(root: string, name: string, op: string, failpoint: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, name, op], {
      env: { ...process.env, GF_FAILPOINT: failpoint },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function inBatches<T, R>(items: readonly T[], width: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(f))));
  return out;
}

const roots: string[] = [];
afterAll(() => {
  for (const r of roots.splice(0)) removeRoot(r);
});
afterEach(() => armRegistryFailpointForTesting(undefined));

function dirEntries(root: string): string[] {
  return fs.readdirSync(path.join(root, 'checkpoints')).sort();
}

describe('registry pair-commit under SIGKILL', () => {
  it('every failpoint, first create and replacement: reopen shows exactly the previous or the next revision', async () => {
    const scenarios = REGISTRY_FAILPOINTS.flatMap((fp) => (['first', 'replace'] as const).map((kind) => ({ fp, kind })));
    const results = await inBatches(
      scenarios,
      4,
      async ({ fp, kind }) => {
        const root = tempRoot('gf-crash-');
        roots.push(root);
        const store = new CheckpointRegistryStore(root);
        if (kind === 'replace') store.mutate(creating('before', uuidN(1)));
        const before = store.read();
        const exit = await runWriter(root, 'after', uuidN(2), fp);
        return { fp, kind, root, before, exit };
      },
    );
    for (const { fp, kind, root, before, exit } of results) {
      const label = `${fp} (${kind})`;
      expect(exit.signal, label).toBe('SIGKILL');
      const store = new CheckpointRegistryStore(root);
      const want = expectedRevision(fp, before.revision);
      // A reader sees the settled outcome before any writer has acted …
      const seen = store.read();
      expect(seen.revision, label).toBe(want);
      const names = (seen.doc?.active ?? []).map((r) => r.name);
      expect(names, label).toEqual(want > before.revision ? (kind === 'first' ? ['after'] : ['after', 'before']) : kind === 'first' ? [] : ['before']);
      if (want === before.revision) expect(seen.sha256, label).toBe(before.sha256);
      // … and recovery under the writer makes the disk say the same thing, leaving exactly the pair.
      expect(store.recover(), label).toEqual(seen);
      const files = want === 0 ? [] : ['registry.json', 'registry.json.sha256'];
      expect(dirEntries(root), label).toEqual(files);
      // The interrupted operation can be retried with the same key: replay or completion, never a conflict.
      const receipt = store.mutate(creating('after', uuidN(2)));
      expect(receipt.registry_revision, label).toBe(before.revision + 1);
      expect(store.read().revision, label).toBe(before.revision + 1);
    }
  }, 240_000);

  it('.error variants report committed truthfully and leave a settled registry', () => {
    for (const fp of REGISTRY_FAILPOINTS) {
      const root = tempRoot('gf-err-');
      roots.push(root);
      const store = new CheckpointRegistryStore(root);
      store.mutate(creating('before', uuidN(1)));
      armRegistryFailpointForTesting(`${fp}.error`);
      let err: GfError | undefined;
      try {
        store.mutate(creating('after', uuidN(2)));
      } catch (e) {
        err = e as GfError;
      }
      const committed = REGISTRY_FAILPOINTS.indexOf(fp) >= NEXT_FROM;
      expect(err?.code, fp).toBe('GF_IO');
      expect(err?.committed, fp).toBe(committed);
      expect(store.read().revision, fp).toBe(committed ? 2 : 1);
      expect(dirEntries(root), fp).toEqual(['registry.json', 'registry.json.sha256']);
    }
  });
});
