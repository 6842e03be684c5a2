import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GfError } from '../../../../core/errors';
import { armFailpointForTesting, createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { ParticipantChange, Project } from '../../../../core/project/index';
import { putConfig, putNodes } from '../../../support/project-fixtures';

// The post-publication cleanup is incremental: its candidates are the objects
// the removed generations' manifests name, minus those any kept manifest
// names. An explicit cleanup, and any pass that sees a sign of an aborted or
// interrupted publication, sweeps every fan-out directory.

let tmp: string;
let n = 0;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-retention-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function bytesOf(c: ParticipantChange): Uint8Array {
  if (c.kind !== 'put') throw new Error('a put');
  return c.bytes;
}

function objectPath(dir: string, bytes: Uint8Array): string {
  const sha = createHash('sha256').update(bytes).digest('hex');
  return path.join(dir, 'objects', 'sha256', sha.slice(0, 2), sha.slice(2));
}

function objectsOnDisk(dir: string): Set<string> {
  const out = new Set<string>();
  const root = path.join(dir, 'objects', 'sha256');
  for (const fan of fs.readdirSync(root)) for (const o of fs.readdirSync(path.join(root, fan))) out.add(fan + o);
  return out;
}

function referencedByKept(dir: string): Set<string> {
  const out = new Set<string>();
  for (const g of fs.readdirSync(path.join(dir, 'generations'))) {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'generations', g, 'manifest.json'), 'utf8')) as { participants: { content_sha256: string }[] };
    for (const p of m.participants) out.add(p.content_sha256);
  }
  return out;
}

/** An unreferenced file with a valid object name (what an aborted or foreign write leaves). */
function plantOrphan(dir: string, label: string): string {
  const bytes = new TextEncoder().encode(`orphan ${label}`);
  const file = objectPath(dir, bytes);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  return file;
}

async function publish(p: Project<Table>, changes: ParticipantChange[]): ReturnType<Project<Table>['publish']> {
  return p.publish({ parent: p.current()?.generationUuid ?? null, changes });
}

async function fresh(): Promise<{ dir: string; p: Project<Table> }> {
  const dir = path.join(tmp, `p${n++}`);
  return { dir, p: await createProject<Table>(dir, { catalog: registryCatalog, retainAncestors: 0 }) };
}

describe('post-publication cleanup (incremental)', () => {
  it('removes exactly the objects only removed generations name, keeps shared ones, and leaves foreign orphans to a full cleanup', async () => {
    const { dir, p } = await fresh();
    const nodes = putNodes(3, 'shared');
    const c1 = putConfig('c1');
    await publish(p, [nodes, c1]);
    const r2 = await publish(p, [putConfig('c2')]);
    // g1 is removed: its config object goes, the node object g2 still names stays.
    expect(r2.cleanup.removedGenerations.length).toBe(1);
    expect(r2.cleanup.removedObjects).toBe(1);
    expect(fs.existsSync(objectPath(dir, bytesOf(c1)))).toBe(false);
    expect(fs.existsSync(objectPath(dir, bytesOf(nodes)))).toBe(true);

    const orphan = plantOrphan(dir, 'foreign');
    const r3 = await publish(p, [putConfig('c3')]);
    expect(r3.cleanup.removedObjects).toBe(1); // c2 only: no fan-out directory is swept
    expect(fs.existsSync(orphan)).toBe(true);
    expect(objectsOnDisk(dir)).toEqual(new Set([...referencedByKept(dir), path.basename(path.dirname(orphan)) + path.basename(orphan)]));

    const full = await p.cleanup();
    expect(full.removedObjects).toBe(1);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(objectsOnDisk(dir)).toEqual(referencedByKept(dir));
  });

  it("an aborted publication's staged objects are removed by the next publication's pass", async () => {
    const { dir, p } = await fresh();
    await publish(p, [putNodes(3, 'base')]);
    const staged = putNodes(7, 'aborted');
    armFailpointForTesting('project.after_journal_staged.error');
    let err: unknown;
    try {
      await publish(p, [staged]);
    } catch (e) {
      err = e;
    } finally {
      armFailpointForTesting(undefined);
    }
    expect(err instanceof GfError ? [err.code, err.committed] : err).toEqual(['GF_IO', false]);
    expect(fs.existsSync(objectPath(dir, bytesOf(staged)))).toBe(false); // the refusal took back the object it added

    // The ABORTED journal makes this pass a full sweep: the orphan goes, and so does the journal.
    const r = await publish(p, [putConfig('after-abort')]);
    expect(fs.existsSync(objectPath(dir, bytesOf(staged)))).toBe(false);
    // The orphan, and the first generation's default configuration document once nothing kept refers to it.
    expect(r.cleanup.removedObjects).toBeGreaterThanOrEqual(1);
    expect(objectsOnDisk(dir)).toEqual(referencedByKept(dir));
    expect(fs.readdirSync(path.join(dir, 'transactions'))).toEqual([`${r.transactionUuid}.json`]);

    // Back to incremental: a foreign orphan planted now survives a publication.
    const orphan = plantOrphan(dir, 'later');
    await publish(p, [putConfig('incremental-again')]);
    expect(fs.existsSync(orphan)).toBe(true);
  });

  it('a symlink planted at a removed object is reported, neither followed nor deleted', async () => {
    const { dir, p } = await fresh();
    await publish(p, [putNodes(2, 'l')]);
    const c1 = putConfig('linked');
    await publish(p, [c1]);
    const target = path.join(tmp, `outside-${n++}`);
    fs.writeFileSync(target, 'keep');
    const obj = objectPath(dir, bytesOf(c1));
    fs.rmSync(obj);
    fs.symlinkSync(target, obj);
    const r = await publish(p, [putConfig('next')]);
    const rel = path.relative(dir, obj).split(path.sep).join('/');
    expect(r.cleanup.unknown).toContain(rel);
    expect(r.cleanup.removedObjects).toBe(0);
    expect(fs.lstatSync(obj).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
  });

  it('after a cleanup interrupted between the move and the deletes, the next pass removes the orphaned objects', async () => {
    const { dir, p } = await fresh();
    await publish(p, [putNodes(3, 'i')]);
    const c1 = putConfig('i1');
    await publish(p, [c1]);
    armFailpointForTesting('project.after_gc_move.error');
    let err: unknown;
    try {
      await publish(p, [putConfig('i2')]);
    } catch (e) {
      err = e;
    } finally {
      armFailpointForTesting(undefined);
    }
    expect(err instanceof GfError ? [err.code, err.committed] : err).toEqual(['GF_IO', true]);
    // The removed generation sits in trash with its manifest; its config object is still on disk.
    expect(fs.readdirSync(path.join(dir, 'trash')).length).toBe(1);
    expect(fs.existsSync(objectPath(dir, bytesOf(c1)))).toBe(true);

    // Recovery empties the trash (the manifest that named the object is gone); the journal left behind makes the pass sweep.
    const r = await publish(p, [putConfig('i3')]);
    expect(fs.readdirSync(path.join(dir, 'trash'))).toEqual([]);
    expect(fs.existsSync(objectPath(dir, bytesOf(c1)))).toBe(false);
    expect(objectsOnDisk(dir)).toEqual(referencedByKept(dir));
    expect(fs.readdirSync(path.join(dir, 'transactions'))).toEqual([`${r.transactionUuid}.json`]);
  });
});
