import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GfError } from '../../../../core/errors';
import { FAILPOINT_NAMES, armFailpointForTesting, committedAt, createProject, manifestEntryJson, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { Project, PublishRequest } from '../../../../core/project/index';
import { putConfig, putEdges, putNodes } from '../../../support/project-fixtures';
import { LATER_HISTORY, scenarioRequest } from '../../../support/project-scenarios';
import { observe, treeDigest } from '../../../support/project-state';
import type { ObservedState } from '../../../support/project-state';

// One set of protocol steps, two drivers: `Project.publish` / `Writer.publishAsync`
// overlap the flushes the protocol does not order, `Writer.publish` (kept
// synchronous for callers such as revert) flushes one at a time. Both must
// leave byte-identical projects and report the same `committed` values.

let tmp: string;
let fixture: string;
let before: ObservedState;
let after: ObservedState;
let n = 0;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-publication-'));
  fixture = path.join(tmp, 'fixture');
  const p = await createProject<Table>(fixture, { catalog: registryCatalog });
  for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
  before = await observe(fixture);
  const ref = copy();
  const rp = await openProject<Table>(ref, { catalog: registryCatalog });
  await rp.publish(scenarioRequest('later', before.generationUuid));
  after = await observe(ref);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function copy(): string {
  const dir = path.join(tmp, `c${n++}`);
  fs.cpSync(fixture, dir, { recursive: true });
  return dir;
}

// One publication time for both drivers: the lineage line records it, and the trees are compared byte for byte.
const LATER = (): PublishRequest => ({ ...scenarioRequest('later', before.generationUuid), lineage: { publishedAt: 1_767_225_600_000_000 } });
const syncPublish = (p: Project<Table>): Promise<unknown> => p.withWriter((w) => w.publish(LATER()));
const asyncPublish = (p: Project<Table>): Promise<unknown> => p.withWriter((w) => w.publishAsync(LATER()));

describe('sequential and concurrent flushing', () => {
  it('leave byte-identical projects', async () => {
    const a = copy();
    const b = copy();
    await syncPublish(await openProject<Table>(a, { catalog: registryCatalog }));
    await asyncPublish(await openProject<Table>(b, { catalog: registryCatalog }));
    expect(treeDigest(a)).toEqual(treeDigest(b));
    expect(await observe(a)).toEqual(after);
  });

  it('the synchronous writer path reports the stated committed value at every failpoint', { timeout: 120_000 }, async () => {
    for (const name of FAILPOINT_NAMES) {
      if (name === 'project.after_format_fsync' || name === 'project.after_container_dir_fsync') continue;
      const dir = copy();
      const p = await openProject<Table>(dir, { catalog: registryCatalog });
      armFailpointForTesting(`${name}.error`);
      let err: unknown;
      try {
        await syncPublish(p);
      } catch (e) {
        err = e;
      } finally {
        armFailpointForTesting(undefined);
      }
      const got = err instanceof GfError ? { code: err.code, committed: err.committed } : { error: String(err) };
      expect({ name, ...got }).toEqual({ name, code: 'GF_IO', committed: committedAt(name) });
      expect({ name, state: await observe(dir) }).toEqual({ name, state: committedAt(name) ? after : before });
    }
  });

  it('the manifest a reader gets in the writing process is exactly the one on disk (canonical order and fields)', async () => {
    const dir = path.join(tmp, `order-${n++}`);
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    // Insertion order differs from the canonical (capability, family, path) order.
    const r = await p.publish({ parent: null, changes: [putNodes(3, 'o'), putConfig('o'), putEdges(2, 'o')] });
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, 'generations', r.generationUuid, 'manifest.json'), 'utf8')) as {
      capabilities: { capability_id: string; capability_version: number }[];
      participants: unknown[];
    };
    const lease = p.lease();
    try {
      expect(lease.manifest.participants.map((e) => manifestEntryJson(e))).toEqual(onDisk.participants);
      expect(lease.manifest.participants.map((e) => Object.keys(e).length)).toEqual(onDisk.participants.map(() => 10));
      expect(lease.manifest.capabilities.map((c) => ({ capability_id: c.capabilityId, capability_version: c.capabilityVersion }))).toEqual(onDisk.capabilities);
      expect(lease.families()).toEqual(['graph/edge', 'graph/node', 'workspace/configuration', 'workspace/ontology']);
    } finally {
      lease.release();
    }
  });
});
