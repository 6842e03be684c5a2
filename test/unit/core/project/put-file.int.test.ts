import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { isGfError } from '../../../../core/errors';
import { createProject, racyWholeReadsForTesting } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { ParticipantChange, PublishRequest } from '../../../../core/project/index';
import { putEdges, putNodes } from '../../../support/project-fixtures';
import { treeDigest } from '../../../support/project-state';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-put-file-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let seq = 0;

/** The same change as a `put-file` of a file holding its bytes. */
function asFile(c: ParticipantChange): ParticipantChange {
  if (c.kind !== 'put') throw new Error('expected a put');
  const file = path.join(tmp, `part-${seq++}.arrow`);
  fs.writeFileSync(file, c.bytes);
  return { kind: 'put-file', capabilityId: c.capabilityId, recordFamilyId: c.recordFamilyId, path: file };
}

function request(changes: readonly ParticipantChange[]): PublishRequest {
  return { parent: null, changes, transactionUuid: '00000000-0000-4000-8000-0000000000aa', lineage: { publishedAt: 1_767_225_600_000_000 } };
}

async function outcome(dir: string, changes: readonly ParticipantChange[]): Promise<string> {
  const p = await createProject<Table>(dir, { catalog: registryCatalog });
  try {
    const r = await p.publish(request(changes));
    return `published ${r.manifestSha256}`;
  } catch (e) {
    if (!isGfError(e)) throw e;
    return `${e.code} ${String(e.details.rule ?? e.details.operation ?? '')} committed=${String(e.committed)}`;
  }
}

describe('put-file: a participant published from a file the caller wrote', () => {
  it('leaves the byte-identical project a put of the same bytes leaves', async () => {
    const changes = [putNodes(6), putEdges(5)];
    const a = path.join(tmp, 'bytes');
    const b = path.join(tmp, 'file');
    const ra = await outcome(a, changes);
    const rb = await outcome(b, changes.map(asFile));
    expect(ra).toMatch(/^published /);
    expect(rb).toBe(ra);
    expect(treeDigest(b)).toEqual(treeDigest(a));
  });

  it('refuses bad records from a file exactly as from bytes (same GF code and rule, same files left)', async () => {
    // Edges whose last target node does not exist: the cross-domain rule graph.edge.endpoint_exists.
    const changes = [putNodes(3), putEdges(3)];
    const a = path.join(tmp, 'bad-bytes');
    const b = path.join(tmp, 'bad-file');
    const ra = await outcome(a, changes);
    expect(ra).toBe('GF_VALIDATION graph.edge.endpoint_exists committed=false');
    expect(await outcome(b, changes.map(asFile))).toBe(ra);
    expect(treeDigest(b)).toEqual(treeDigest(a));
  });

  it('a missing file is GF_IO and publishes nothing', async () => {
    const dir = path.join(tmp, 'missing');
    const missing: ParticipantChange = { kind: 'put-file', capabilityId: 'graph', recordFamilyId: 'node', path: path.join(tmp, 'absent.arrow') };
    expect(await outcome(dir, [missing])).toBe('GF_IO read committed=false');
    expect(fs.existsSync(path.join(dir, 'CURRENT'))).toBe(false);
  });

  it('reads the object it just staged by ranges (hashed in chunks, identity-checked), never whole as a racy-recent file', async () => {
    // The publication's own fresh objects are opened by ranges: no whole read under the racy-clean rule,
    // and (their identity being younger than that rule's age) none is remembered for a later open.
    const p = await createProject<Table>(path.join(tmp, 'ranged'), { catalog: registryCatalog });
    const wholeBefore = racyWholeReadsForTesting();
    await p.publish(request([asFile(putNodes(6)), asFile(putEdges(5))]));
    expect(racyWholeReadsForTesting()).toBe(wholeBefore);
    const lease = p.lease();
    try {
      for (const key of ['graph/node', 'graph/edge']) {
        const sha = lease.participant(key)?.contentSha256 as string;
        expect(p.caches.verifiedObjects.has(sha), key).toBe(false);
      }
    } finally {
      lease.release();
    }
  });
});
