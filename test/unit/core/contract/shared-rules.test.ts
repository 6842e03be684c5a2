// The rules core/contract declares once (names, reasons, time, errors, typed
// Arrow rows): the contract's request schemas and the engine accept exactly
// the same inputs, and values cross the wire intact.
import { Field, Schema, Table, TimeUnit, TimestampMicrosecond, Utf8, makeData, RecordBatch, Struct, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { validateRequest } from '../../../../core/api/dispatcher';
import { ChainError } from '../../../../core/chain/errors';
import { fromWireError, ChainFailure } from '../../../../core/contract/errors';
import { normalizeName, NAME_MAX_UTF8_BYTES, utf8Length } from '../../../../core/contract/names';
import { REASON_MAX_UTF8_BYTES, reasonProblem } from '../../../../core/contract/reasons';
import { microsIso } from '../../../../core/contract/time';
import { GfError, toWireError } from '../../../../core/errors';
import { validateReason } from '../../../../core/checkpoints/revert-identity';
import { decodeArrow } from '../../../../renderer/arrow-rows';
import { checkpointTable } from '../../../../core/checkpoints/arrow-results';

const H = '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';
const U = '018f0f4e-7b8c-7000-8000-000000000001';

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? 'threw';
  }
};
const revert = (reason: string) => () => validateRequest('checkpoints.revert', { project: H, name: 'baseline', reason, idempotency_key: U });
const create = (name: string) => () => validateRequest('checkpoints.create', { project: H, name, idempotency_key: U });

describe('shared rules: the contract accepts what the engine accepts', () => {
  it('a reason that trims to exactly 1,024 bytes passes both; one byte more fails both with GF_VALIDATION', () => {
    const atLimit = `  \n${'r'.repeat(REASON_MAX_UTF8_BYTES)}\t `;
    expect(Buffer.byteLength(atLimit)).toBeGreaterThan(REASON_MAX_UTF8_BYTES);
    expect([codeOf(revert(atLimit)), codeOf(() => validateReason(atLimit))]).toEqual(['ok', 'ok']);
    expect(validateReason(atLimit)).toHaveLength(REASON_MAX_UTF8_BYTES);
    expect(reasonProblem(atLimit)).toBeNull();
    const over = ` ${'r'.repeat(REASON_MAX_UTF8_BYTES + 1)} `;
    expect([codeOf(revert(over)), codeOf(() => validateReason(over))]).toEqual(['GF_VALIDATION', 'GF_VALIDATION']);
    expect([codeOf(revert('   ')), codeOf(() => validateReason('   '))]).toEqual(['GF_VALIDATION', 'GF_VALIDATION']);
  });

  it('a decomposed name over 128 raw bytes but within 128 after NFC passes both; over 128 after NFC fails both', () => {
    const decomposed = 'e\u0301'.repeat(60); // 180 raw bytes, 120 after NFC
    expect(Buffer.byteLength(decomposed)).toBeGreaterThan(NAME_MAX_UTF8_BYTES);
    expect(utf8Length(decomposed.normalize('NFC'))).toBeLessThanOrEqual(NAME_MAX_UTF8_BYTES);
    expect([codeOf(create(decomposed)), codeOf(() => normalizeName(decomposed))]).toEqual(['ok', 'ok']);
    const tooLong = 'e\u0301'.repeat(65); // 130 bytes after NFC
    expect([codeOf(create(tooLong)), codeOf(() => normalizeName(tooLong))]).toEqual(['GF_VALIDATION', 'GF_VALIDATION']);
    // Names the engine refuses, the contract refuses too (one rule): a compatibility form, a separator.
    for (const bad of ['ｆｕｌｌ', 'a/b', ' lead']) expect([codeOf(create(bad)), codeOf(() => normalizeName(bad))]).toEqual(['GF_VALIDATION', 'GF_VALIDATION']);
  });

  it('CURRENT is a diff selector on every surface', () => {
    expect(codeOf(() => validateRequest('checkpoints.diff', { project: H, from: 'CURRENT', to: 'CURRENT', scope: 'all', detail: 'summary' }))).toBe('ok');
  });
});

describe('the one microsecond formatter', () => {
  it('floors toward negative infinity: −1 µs is the last microsecond of 1969', () => {
    expect(microsIso(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(microsIso(-1000n)).toBe('1969-12-31T23:59:59.999000Z');
    expect(microsIso(-1001n)).toBe('1969-12-31T23:59:59.998999Z');
    expect(microsIso(0n)).toBe('1970-01-01T00:00:00.000000Z');
    expect(microsIso(1_767_225_600_000_001n)).toBe('2026-01-01T00:00:00.000001Z');
  });

  it('agrees with an independent computation over a range around the epoch', () => {
    for (let us = -2_000_003n; us <= 2_000_003n; us += 999_983n) {
      const floorS = us >= 0n ? us / 1_000_000n : -((-us + 999_999n) / 1_000_000n);
      const frac = us - floorS * 1_000_000n;
      const expected = `${new Date(Number(floorS) * 1000).toISOString().slice(0, 19)}.${frac.toString().padStart(6, '0')}Z`;
      expect(microsIso(us)).toBe(expected);
    }
  });
});

describe('one error model across the wire', () => {
  it('a chain error keeps its id, message and details (never GF_IO)', () => {
    const e = new ChainError('workflows.illegal_transition', 'illegal ledger transition a -> b', { prior_state_id: 'a', next_state_id: 'b' });
    const back = fromWireError(JSON.parse(JSON.stringify(toWireError(e))));
    expect(back).toBeInstanceOf(ChainFailure);
    expect(back.code).toBe('workflows.illegal_transition');
    expect((back as ChainFailure).errorId).toBe('workflows.illegal_transition');
    expect(back.details).toEqual({ prior_state_id: 'a', next_state_id: 'b' });
  });

  it('a GF error comes back as a GfError; an unknown code becomes GF_PROTOCOL (never GF_IO) naming it, details kept', () => {
    expect(fromWireError(toWireError(new GfError('GF_VALIDATION', 'x', { field: 'name' })))).toBeInstanceOf(GfError);
    const odd = fromWireError({ code: 'FUTURE_CODE', committed: null, message: 'later', details: { n: 1 } });
    expect(odd.code).toBe('GF_PROTOCOL');
    expect(odd.details).toEqual({ n: 1, wire_code: 'FUTURE_CODE' });
  });
});

describe('typed Arrow rows', () => {
  it('decodes a checkpoint list by the contract columns, timestamps to the microsecond', () => {
    const bytes = tableToIPC(
      checkpointTable([
        { checkpoint_uuid: U, name: 'baseline', description: null, generation_uuid: H, generation_manifest_sha256: 'ab'.repeat(32), created_at: -1, created_by: null },
      ] as never),
      'stream',
    );
    const page = decodeArrow(bytes, 'checkpoints.list', 'checkpoint@1');
    expect(page.rows[0]?.name).toBe('baseline');
    expect(page.rows[0]?.created_at).toBe('1969-12-31T23:59:59.999999Z');
  });

  it('refuses a result whose columns are not the declared schema (GF_SCHEMA_MISMATCH)', () => {
    const ts = new TimestampMicrosecond();
    const schema = new Schema([new Field('name', new Utf8(), false), new Field('created', ts, false)]);
    const names = makeData({ type: new Utf8(), length: 1, valueOffsets: Int32Array.from([0, 1]), data: Uint8Array.from([0x61]) });
    const times = makeData({ type: ts, length: 1, data: BigInt64Array.from([0n]) });
    const t = new Table([new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 1, children: [names, times] }))]);
    expect(ts.unit).toBe(TimeUnit.MICROSECOND);
    expect(codeOf(() => decodeArrow(tableToIPC(t, 'stream'), 'checkpoints.list'))).toBe('GF_SCHEMA_MISMATCH');
    expect(decodeArrow(tableToIPC(t, 'stream'), 'view.records').rows[0]?.['created']).toBe('1970-01-01T00:00:00.000000Z');
  });
});
