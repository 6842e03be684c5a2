import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { PARTICIPANT_LIMITS } from '../../../../core/contract/operations';
import { isGfError } from '../../../../core/errors';
import { GRAPH_NODE, encodeRecords, registryCatalog } from '../../../../core/participants/index';
import { createProject } from '../../../../core/project/index';
import { nodeRecords } from '../../../support/project-fixtures';
import { treeDigest } from '../../../support/project-state';

// An Arrow participant's metadata is bounded (PARTICIPANT_LIMITS.arrowMetadataBytes, declared once in
// the contract): before, 5 MB of arbitrary schema metadata was accepted and stored. The refusal is
// GF_RESOURCE_LIMIT with a sentence naming the participant and the limit, and nothing on disk changes.

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-participant-limits-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Valid graph/node bytes whose schema carries `metadataBytes` bytes of one metadata value. */
function nodesWithMetadata(metadataBytes: number, seed: string): Uint8Array {
  const table = tableFromIPC(encodeRecords(GRAPH_NODE, nodeRecords(3, seed)));
  table.schema.metadata.set('notes', 'x'.repeat(metadataBytes));
  return tableToIPC(table, 'file');
}

async function refusal(run: () => Promise<unknown>): Promise<{ code: string; message: string; committed: boolean | undefined } | null> {
  try {
    await run();
    return null;
  } catch (e) {
    return isGfError(e) ? { code: e.code, message: e.message, committed: e.committed } : { code: 'not a GfError', message: String(e), committed: undefined };
  }
}

const SENTENCE = /^GF_RESOURCE_LIMIT: participant graph\/node carries 5,24\d,\d{3} bytes of Arrow metadata \(schema, field and message key\/values\); the limit is 65,536 bytes$/;

describe('an Arrow participant with megabytes of metadata', () => {
  it('is refused (put bytes and put-file) with GF_RESOURCE_LIMIT naming the participant and the limit; nothing on disk changes', async () => {
    expect(PARTICIPANT_LIMITS.arrowMetadataBytes).toBe(64 * 1024);
    const root = path.join(tmp, 'p');
    const p = await createProject<Table>(root, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, nodeRecords(3, 'base')) }] });
    const before = treeDigest(root);
    const bytes = nodesWithMetadata(5 * 1024 * 1024, 'big');
    const put = await refusal(() => p.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes }] }));
    expect(put).toEqual({ code: 'GF_RESOURCE_LIMIT', message: expect.stringMatching(SENTENCE) as unknown as string, committed: false });
    expect(treeDigest(root)).toEqual(before);
    // From a file: refused on its staged copy, which is taken back (the objects are exactly those before).
    const objects = (): string[] => fs.readdirSync(path.join(root, 'objects/sha256')).flatMap((f) => fs.readdirSync(path.join(root, 'objects/sha256', f)).map((o) => f + o)).sort();
    const had = objects();
    const file = path.join(tmp, 'big.arrow');
    fs.writeFileSync(file, bytes);
    const putFile = await refusal(() => p.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'put-file', capabilityId: 'graph', recordFamilyId: 'node', path: file }] }));
    expect(putFile?.code).toBe('GF_RESOURCE_LIMIT');
    expect(putFile?.message).toMatch(SENTENCE);
    expect(objects()).toEqual(had);
    // Metadata within the bound is still accepted.
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: nodesWithMetadata(1024, 'small') }] });
    expect(objects().length).toBe(had.length + 1);
  });

  it('over the dispatcher (project.publish): the same code and sentence', async () => {
    const root = path.join(tmp, 'd');
    const seed = await createProject<Table>(root, { catalog: registryCatalog });
    await seed.publish({ parent: null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, nodeRecords(3, 'base')) }] });
    const before = treeDigest(root);
    const facade = createFacade({ mode: 'library' });
    try {
      const opened = (await facade.dispatcher.dispatch('project.open', { path: root })) as unknown as { ok: true; value: { project: string } };
      const r = (await facade.dispatcher.dispatch('project.publish', {
        project: opened.value.project,
        changes: [{ kind: 'put', capability_id: 'graph', record_family_id: 'node', bytes_base64: Buffer.from(nodesWithMetadata(5 * 1024 * 1024, 'big')).toString('base64') }],
      })) as unknown as { ok: boolean; error: { code: string; message: string } };
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe('GF_RESOURCE_LIMIT');
      expect(r.error.message).toMatch(SENTENCE);
    } finally {
      await facade.close();
    }
    expect(treeDigest(root)).toEqual(before);
  });
});
