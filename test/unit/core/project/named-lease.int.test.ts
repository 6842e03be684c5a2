// ADR-0014: "There is no public operation that opens an arbitrary generation
// UUID, manifest digest, or filesystem path." Checked over everything the
// library exports (every public entry module, each exported class's static
// and prototype members, the Project and Writer instances) and over the
// operation contract, not only the Checkpoints prototype.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as contract from '../../../../core/contract/operations';
import * as dispatcher from '../../../../core/api/dispatcher';
import * as facade from '../../../../core/api/facade';
import * as canonical from '../../../../core/canonical/index';
import * as checkpoints from '../../../../core/checkpoints/checkpoints';
import * as demo from '../../../../core/demo/index';
import * as diff from '../../../../core/diff/index';
import * as participants from '../../../../core/participants/index';
import * as projectLib from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { leaseRecordedGeneration } from '../../../../core/project/named-lease';
import * as revert from '../../../../core/revert/index';
import * as views from '../../../../core/views/checkpoint-view';
import { putConfig } from '../../../support/project-fixtures';

const LIBRARY: Record<string, Record<string, unknown>> = { contract, dispatcher, facade, canonical, checkpoints, demo, diff, participants, project: projectLib, revert, views };

/** A member that would open a generation by identity: lease/open/pin/read/view + generation, either order. */
const OPENS_GENERATION = /(lease|open|pin|view|load)\w*generation|generation\w*(lease|open|pin|view|load)/i;

function memberNames(value: unknown): string[] {
  if (typeof value !== 'function' && (typeof value !== 'object' || value === null)) return [];
  const names = new Set<string>(Object.getOwnPropertyNames(value));
  if (typeof value === 'function' && typeof (value as { prototype?: unknown }).prototype === 'object') {
    let proto: object | null = (value as { prototype: object }).prototype;
    while (proto !== null && proto !== Object.prototype && proto !== Function.prototype) {
      for (const n of Object.getOwnPropertyNames(proto)) names.add(n);
      proto = Object.getPrototypeOf(proto) as object | null;
    }
  }
  return [...names];
}

let tmp: string;
let project: projectLib.Project<Table>;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-named-lease-'));
  project = await projectLib.createProject<Table>(path.join(tmp, 'p'), { catalog: registryCatalog });
  await project.publish({ parent: null, changes: [putConfig('a')] });
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('no_public_arbitrary_generation_open', () => {
  it('no export of any public entry module, nor any member of an exported class, opens a generation by identity', () => {
    const offenders: string[] = [];
    for (const [mod, exports] of Object.entries(LIBRARY)) {
      for (const [name, value] of Object.entries(exports)) {
        if (OPENS_GENERATION.test(name)) offenders.push(`${mod}.${name}`);
        for (const m of memberNames(value)) if (OPENS_GENERATION.test(m)) offenders.push(`${mod}.${name}#${m}`);
      }
    }
    expect(offenders).toEqual([]);
    // The matcher is not vacuous: the internal helper's own name is caught.
    expect(OPENS_GENERATION.test(leaseRecordedGeneration.name)).toBe(true);
    expect(OPENS_GENERATION.test('leaseGeneration')).toBe(true);
  });

  it('a Project and a Writer instance expose no generation open; only CURRENT can be leased', async () => {
    const instanceNames = (o: object): string[] => {
      const out = new Set<string>();
      for (let p: object | null = o; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) for (const n of Object.getOwnPropertyNames(p)) out.add(n);
      return [...out];
    };
    expect(instanceNames(project).filter((n) => OPENS_GENERATION.test(n))).toEqual([]);
    expect('leaseGeneration' in project).toBe(false);
    const writerNames = await project.withWriter((w) => Object.keys(w));
    expect(writerNames.filter((n) => OPENS_GENERATION.test(n))).toEqual([]);
    expect(writerNames).toContain('leaseCurrent');
  });

  it('no operation of the contract takes a generation UUID, a manifest digest or a path (except a directory the user names: open, create, ledgers, demo, doctor)', () => {
    const directoryOps = new Set(['project.open', 'project.create', 'chain.open', 'demo.create', 'project.doctor']);
    // history.list's generation_uuid filters lineage-log records (metadata, pruned rows included); it opens no generation.
    // checkpoints.revert's expected_current_generation_uuid is a precondition compared with CURRENT under the writer lock; it opens no generation.
    const metadataFilters = new Set(['history.list.generation_uuid', 'checkpoints.revert.expected_current_generation_uuid']);
    const fields: string[] = [];
    for (const [op, spec] of Object.entries(contract.OPERATIONS)) {
      const shape = (spec.request as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      for (const k of Object.keys(shape)) if (/generation|manifest|path/i.test(k) && !(k === 'path' && directoryOps.has(op)) && !metadataFilters.has(`${op}.${k}`)) fields.push(`${op}.${k}`);
    }
    expect(fields).toEqual([]);
  });
});
