import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTransitionEvent } from '../../../../core/chain/event';
import { CREDENTIAL_PATTERNS, isSecretKey, REDACTED, sanitizeEvent, sanitizeValue } from '../../../../core/chain/sanitize';
import { SECRET_SAMPLES } from './conformance/secret-samples';

const ROOT = join(import.meta.dirname, '../../../..');

describe('the project-wide sanitizer', () => {
  it('covers at least fifty distinct secret shapes, each redacted whole (alone and inside prose)', () => {
    expect(new Set(SECRET_SAMPLES.map((s) => s.shape)).size).toBeGreaterThanOrEqual(50);
    expect(CREDENTIAL_PATTERNS.length).toBeGreaterThanOrEqual(50);
    for (const s of SECRET_SAMPLES) {
      expect(sanitizeValue(s.secret), s.shape).toBe(REDACTED);
      if (s.standalone !== true) expect(sanitizeValue(`note: ${s.secret} end`), s.shape).toBe(REDACTED);
    }
  });

  it('redacts any value under a secret-named key (the seed regex), at every depth', () => {
    for (const key of ['api_key', 'KEY', 'token', 'GITHUB_TOKEN', 'client_secret', 'db_password', 'pat', 'jwt_value', 'cred', 'x_CRED_y']) {
      expect(isSecretKey(key), key).toBe(true);
      expect(sanitizeValue({ a: { [key]: 'harmless-looking', list: [{ [key]: 42 }] } })).toEqual({ a: { [key]: REDACTED, list: [{ [key]: REDACTED }] } });
    }
    for (const key of ['monkey', 'keyboard', 'tokens_count', 'path', 'patch', 'secretary', 'kind', 'detail', 'evidence_digest']) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });

  it('keeps harmless text and digests verbatim (no over-eager masking of evidence)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
        const d = `sha256:${Buffer.from(b).toString('hex')}`;
        expect(sanitizeValue(d)).toBe(d);
        expect(sanitizeValue(`blake3:${Buffer.from(b).toString('hex')}`)).toBe(`blake3:${Buffer.from(b).toString('hex')}`);
      }),
      { numRuns: 200 },
    );
    for (const t of ['lint passed', 'unit gate failed: 2 tests', 'patch applied to 3 files', 'plan: bump lodash to 4.17.21', '01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      expect(sanitizeValue(t)).toBe(t);
    }
  });

  it('AC-12 sanitizeEvent redacts the outcome of an event; identity fields stay', () => {
    const e = buildTransitionEvent({
      workflow_id: 'wf',
      prior_state_id: 'needs_plan',
      next_state_id: 'plan_ready',
      triggering_outcome: { kind: 'DEPLOY_TOKEN', detail: `pushed with ghp_${'x'.repeat(36)}` },
    });
    const s = sanitizeEvent(e);
    expect(s.triggering_outcome).toEqual({ kind: REDACTED, evidence_digest: null, detail: REDACTED });
    expect({ ...s, triggering_outcome: null }).toEqual({ ...e, triggering_outcome: null });
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('AC-12 fence: adapters call the one sanitizer (through prepareAppend) and compile no patterns of their own', () => {
    const support = readFileSync(join(ROOT, 'core/chain/store-support.ts'), 'utf8');
    expect(support).toMatch(/from '\.\/sanitize'/);
    expect(support).toMatch(/sanitizeEvent\(/);
    // Every adapter, the Postgres one included. The only pattern an adapter may hold is Postgres' SQLSTATE shape (5 chars), which is not about secrets.
    const allowed = ['/^[0-9A-Z]{5}$/.test(code)'];
    for (const f of ['core/chain/memory/memory-store.ts', 'core/chain/sqlite/sqlite-store.ts', 'core/chain/postgres/postgres-store.ts']) {
      const src = allowed.reduce((text, a) => text.split(a).join(''), readFileSync(join(ROOT, f), 'utf8'));
      expect(src, f).toMatch(/prepareAppend\(/);
      expect(src, f).not.toMatch(/new RegExp|\.test\(|\.match\(|\.replace\(\/|REDACTED/);
    }
  });
});
