// ADR-0014: diff "accepts checkpoint names plus the reserved selector CURRENT".
// Decision: "CURRENT" is reserved as a checkpoint name, so every diff
// endpoint is unambiguous; the engine, the contract, the CLI and the UI's
// live name check all refuse it (case-sensitive, like the selector).
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../../core/contract/operations';
import { main } from '../../../../core/cli/main';
import { newNameProblem } from '../../../../core/contract/names';
import { codeOf, workspace } from './checkpoint-support';
import type { Workspace } from './checkpoint-support';

const spaces: Workspace[] = [];
afterEach(() => {
  for (const w of spaces.splice(0)) w.close();
});

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('current_is_a_reserved_selector', () => {
  it('the engine refuses to create a checkpoint named CURRENT (committed false, nothing written); "current" is an ordinary name', async () => {
    const w = await workspace();
    spaces.push(w);
    await w.publish('a');
    const before = w.cps.registryState();
    const err = await w.cps.checkpoint({ name: 'CURRENT', idempotencyKey: op(1) }).catch((e: unknown) => e as { code?: string; committed?: boolean; details?: Record<string, unknown> });
    expect(err).toMatchObject({ code: 'GF_VALIDATION', committed: false, details: { field: 'name', refusal: 'reserved_name' } });
    expect(w.cps.registryState()).toEqual(before);
    expect(await codeOf(() => w.cps.checkpoint({ name: 'current', idempotencyKey: op(2) }))).toBe('accepted');
  });

  it('the contract refuses it for create only; diff endpoints still accept the selector', () => {
    const nameIssues = (schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } }, req: object, field: string): number =>
      schema.safeParse(req).error?.issues.filter((i) => i.path[0] === field).length ?? 0;
    const create = OPERATIONS['checkpoints.create'].request;
    expect(nameIssues(create, { name: 'CURRENT', idempotency_key: op(3) }, 'name')).toBe(1);
    expect(nameIssues(create, { name: 'Release', idempotency_key: op(3) }, 'name')).toBe(0);
    const diff = OPERATIONS['checkpoints.diff'].request;
    expect(nameIssues(diff, { from: 'CURRENT', to: 'Release', scope: 'all', detail: 'summary' }, 'from')).toBe(0);
  });

  it('the CLI refuses `gf checkpoint create CURRENT` with GF_VALIDATION; the UI name check explains the reservation', async () => {
    const w = await workspace();
    spaces.push(w);
    await w.publish('a');
    let err = '';
    const code = await main(['checkpoint', 'create', 'CURRENT', '--project', w.dir], { stdout: () => undefined, stderr: (c) => void (err += c) });
    expect(code).toBe(1);
    expect(err).toContain('GF_VALIDATION');
    expect(err).toContain('committed: false');
    expect(newNameProblem('CURRENT')).toMatch(/reserved/);
    expect(newNameProblem('current')).toBeNull();
  });
});
