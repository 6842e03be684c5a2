import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { validateRequest } from '../../../../core/api/dispatcher';
import { createFacade } from '../../../../core/api/facade';
import { OPERATIONS, OPERATION_NAMES } from '../../../../core/contract/operations';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { isGfError } from '../../../../core/errors';
import { gf } from '../../../support/cli-run';

// Every refusal names the field, the rule and the value's problem in words, on every surface: never zod's
// own English ("Too small: expected string to have >=1 characters", "Invalid input: expected …") and never
// only "request does not match the operation contract".

const ZOD_ENGLISH = /Too small|Too big|Invalid input|Invalid option|Invalid string|expected .* received|does not match the operation contract/;

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-refusal-words-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function refusal(op: (typeof OPERATION_NAMES)[number], payload: object): string {
  try {
    validateRequest(op, payload);
  } catch (e) {
    if (isGfError(e) && e.code === 'GF_VALIDATION') return e.message;
    throw e;
  }
  return '(accepted)';
}

describe('refusals in the words of the rule', () => {
  it('over the CLI: an empty name says the field must not be empty; a page size over the bound says the bound', async () => {
    const empty = await gf('checkpoint', 'create', '', '--project', demo);
    expect(empty.err).toBe('GF_VALIDATION: name: must not be empty (committed: false)\n');
    const limit = await gf('checkpoint', 'list', '--project', demo, '--limit', '100000');
    expect(limit.err).toBe('GF_VALIDATION: limit: a page size is at most 10000\n');
  });

  it('over the dispatcher: each kind of rule (empty, kind of value, allowed values, bound, pattern, required)', async () => {
    const facade = createFacade({ mode: 'library' });
    try {
      const call = async (op: string, payload: object): Promise<string> => {
        const r = (await facade.dispatcher.dispatch(op, payload)) as unknown as { ok: boolean; error?: { code: string; message: string } };
        expect(r.ok).toBe(false);
        return `${r.error?.code as string}: ${r.error?.message as string}`;
      };
      const { project } = ((await facade.dispatcher.dispatch('project.open', { path: demo })) as unknown as { value: { project: string } }).value;
      expect(await call('checkpoints.create', { project, name: '' })).toBe('GF_VALIDATION: GF_VALIDATION: name: must not be empty');
      expect(await call('checkpoints.list', { project, limit: 'ten' })).toBe('GF_VALIDATION: GF_VALIDATION: limit: a page size is a whole number');
      expect(await call('project.doctor', { path: demo, repair: 'yes' })).toBe('GF_VALIDATION: GF_VALIDATION: repair: must be true or false');
      expect(await call('checkpoints.diff', { project, from: 'CURRENT', to: 'CURRENT', scope: 'everything' })).toMatch(/^GF_VALIDATION: GF_VALIDATION: scope: must be one of "/);
      const pattern = await call('project.publish', { project, changes: [{ kind: 'remove', capability_id: 'Graph!', record_family_id: 'node' }] });
      expect(pattern).toMatch(/^GF_VALIDATION: GF_VALIDATION: changes\[0\]\.capability_id: |^GF_VALIDATION: GF_VALIDATION: changes\[0\]: /);
      expect(pattern).not.toMatch(ZOD_ENGLISH);
      expect(await call('checkpoints.create', {})).toBe('GF_VALIDATION: GF_VALIDATION: project: is required');
    } finally {
      await facade.close();
    }
  });

  it('every operation: a wrong-kind value in each declared field is refused naming that field, never in zod English', () => {
    let checked = 0;
    for (const op of OPERATION_NAMES) {
      const shape = (OPERATIONS[op].request as unknown as { shape?: Record<string, z.ZodType> }).shape;
      for (const [field, schema] of Object.entries(shape ?? {})) {
        // A value of a kind the field does not take (an object where text/numbers/lists go, a number where an object goes).
        const wrong = [{ nested: [1] }, 12345, 'x'.repeat(70_000)].find((v) => !schema.safeParse(v).success);
        if (wrong === undefined) continue;
        const message = refusal(op, { [field]: wrong });
        if (field === 'after') continue; // a page token that cannot be one is GF_PAGE_INVALID (its own test)
        expect({ op, field, message }).toEqual({ op, field, message: expect.stringMatching(new RegExp(`^GF_VALIDATION: ${field}(\\.|\\[|:)`)) as unknown as string });
        expect({ op, field, message }).not.toEqual({ op, field, message: expect.stringMatching(ZOD_ENGLISH) as unknown as string });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
