import { describe, expect, it } from 'vitest';
import { CHAIN_HEAD_PATTERN, verifyFailure, workflowIdRefusal } from '../../../../core/contract/chain';
import { errorCodeOf } from '../../../../core/contract/errors';
import type { VerifyEntry } from '../../../../core/contract/operations';

const HEAD_A = `blake3:${'a'.repeat(64)}`;
const HEAD_B = `blake3:${'b'.repeat(64)}`;
const ok = (workflow_id: string, tail_head = HEAD_A): VerifyEntry => ({ workflow_id, status: 'ok', first_bad_sequence: null, rows: 3, tail_head });

describe('the one verification verdict (chain.verify and gf chain verify)', () => {
  it('is null when every chain verified and every expected head matches', () => {
    expect(verifyFailure([ok('a'), ok('b', HEAD_B)], new Map([['a', HEAD_A], ['b', HEAD_B]]))).toBeNull();
  });

  it('ranks a torn row over a mismatch over an unreadable ledger, each with its own code', () => {
    const torn: VerifyEntry = { ...ok('t'), status: 'torn_write', first_bad_sequence: 2 };
    const mismatch: VerifyEntry = { ...ok('m'), status: 'chain_mismatch', first_bad_sequence: 2 };
    const unreadable: VerifyEntry = { ...ok('u'), status: 'unreadable', rows: 0, tail_head: '', ledger: 'chain/u/checkpoints.sqlite', cause: 'SQLITE_NOTADB' };
    expect(errorCodeOf(verifyFailure([unreadable, mismatch, torn]))).toBe('workflows.checkpoint_torn_write');
    expect(errorCodeOf(verifyFailure([unreadable, mismatch]))).toBe('workflows.checkpoint_chain_mismatch');
    const bad = verifyFailure([ok('a'), unreadable]);
    expect(errorCodeOf(bad)).toBe('GF_PROJECT_CORRUPT');
    expect((bad as { details: Record<string, unknown> }).details['name']).toBe('chain/u/checkpoints.sqlite');
  });

  it('a tail other than the recorded head, or a workflow missing from the report, is checkpoint_head_unexpected', () => {
    expect(errorCodeOf(verifyFailure([ok('a')], new Map([['a', HEAD_B]])))).toBe('workflows.checkpoint_head_unexpected');
    expect(errorCodeOf(verifyFailure([ok('a')], new Map([['gone', HEAD_A]])))).toBe('workflows.checkpoint_head_unexpected');
  });

  it('workflow ids and heads follow CHAIN.md; a refusal never carries the text', () => {
    expect(workflowIdRefusal('wf-1:build.2')).toBeNull();
    for (const bad of ['..', '.', 'a/b', '', 'x'.repeat(129)]) expect(errorCodeOf(workflowIdRefusal(bad)), bad).toBe('workflows.invalid_workflow_id');
    expect(String(workflowIdRefusal('../../etc/passwd')?.message)).not.toContain('passwd');
    expect(CHAIN_HEAD_PATTERN.test(HEAD_A)).toBe(true);
    expect(CHAIN_HEAD_PATTERN.test(`sha256:${'a'.repeat(64)}`)).toBe(false);
  });
});
