import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPublicationCatalog, validateCurrentByRows } from '../../../../core/demo/demo-validation';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { putColumns } from '../../../../core/demo/tables';
import { GRAPH_NODE, registryCatalog } from '../../../../core/participants/index';
import { ValidationMemo, projectValidationMemo } from '../../../../core/checkpoints/snapshot-validation';
import { createProject } from '../../../../core/project/index';
import type { GfError } from '../../../../core/errors';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-demo-validation-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function node(properties: string): ReturnType<typeof putColumns> {
  return putColumns(GRAPH_NODE, {
    node_uuid: ['0190a3b4-5c6d-8e7f-8a1b-2c3d4e5f6a7b'],
    class_id: ['paper'],
    label: ['Paper 0'],
    properties: [properties],
    created_at: [1n],
    updated_at: [null],
  });
}

describe('the demo publication catalog', () => {
  it('still refuses a participant that breaks a domain rule (checked once, inside the complete validation)', async () => {
    const p = await createProject<Table>(path.join(tmp, 'bad'), { catalog: registryCatalog });
    const err = await p.publish({ parent: null, changes: [node('{"year": 1999}')], wrapCatalog: demoPublicationCatalog }).catch((e: unknown) => e as GfError);
    expect((err as GfError).code).toBe('GF_VALIDATION');
    expect((err as GfError).details).toMatchObject({ rule: 'participant.canonical_json', field: 'properties' });
    expect(p.current()).toBeNull();
  });

  it('refuses a put-file that breaks a domain rule too (its row-range check deferred to the complete validation, not skipped)', async () => {
    const p = await createProject<Table>(path.join(tmp, 'bad-file'), { catalog: registryCatalog });
    projectValidationMemo(p.caches).clear();
    const bytes = node('{"year": 1999}');
    if (bytes.kind !== 'put') throw new Error('expected a put');
    const file = path.join(tmp, 'bad-node.arrow');
    fs.writeFileSync(file, bytes.bytes);
    const change = { kind: 'put-file' as const, capabilityId: GRAPH_NODE.capabilityId, recordFamilyId: GRAPH_NODE.recordFamilyId, path: file };
    const err = await p.publish({ parent: null, changes: [change], wrapCatalog: demoPublicationCatalog }).catch((e: unknown) => e as GfError);
    expect((err as GfError).code).toBe('GF_VALIDATION');
    expect((err as GfError).details).toMatchObject({ rule: 'participant.canonical_json', field: 'properties', row: 0 });
    expect(p.current()).toBeNull();
  });

  it('publishes valid bytes and leaves every check it ran remembered for the checkpoint that follows', async () => {
    const p = await createProject<Table>(path.join(tmp, 'good'), { catalog: registryCatalog });
    projectValidationMemo(p.caches).clear();
    await p.publish({ parent: null, changes: [node('{"year":1999}')], wrapCatalog: demoPublicationCatalog });
    expect(p.current()).not.toBeNull();
    expect(projectValidationMemo(p.caches).size).toBeGreaterThan(0);
  });

  it('validates CURRENT by row ranges ahead of a checkpoint, which then finds every check passed (and a violation is still refused)', async () => {
    const p = await createProject<Table>(path.join(tmp, 'ahead'), { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [node('{"year":1999}')] }); // the plain catalog: nothing remembered
    const memo = new ValidationMemo();
    validateCurrentByRows(p, memo);
    expect(memo.size).toBeGreaterThan(0);
    const before = memo.misses;
    await new Checkpoints(p, { memo, clock: () => 1_700_000_000_000_000 }).checkpoint({ name: 'ahead', idempotencyKey: '0190a3b4-5c6d-8e7f-8a1b-2c3d4e5f6a7c' });
    expect(memo.misses).toBe(before); // the checkpoint decoded nothing: every check was a hit

    // A generation published past its domain rules (a catalog that skips them): the check ahead refuses it, naming rule and row.
    const bad = await createProject<Table>(path.join(tmp, 'ahead-bad'), { catalog: { ...registryCatalog, validateParticipant: () => undefined } });
    await bad.publish({ parent: null, changes: [node('{"year": 1999}')] });
    const err = (() => {
      try {
        validateCurrentByRows(bad, new ValidationMemo());
        return undefined;
      } catch (e) {
        return e as GfError;
      }
    })();
    expect(err?.code).toBe('GF_VALIDATION');
    expect(err?.details).toMatchObject({ rule: 'participant.canonical_json', field: 'properties', row: 0 });
  });
});
