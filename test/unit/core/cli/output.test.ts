import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { NEXT_PAGE_TOKEN_KEY } from '../../../../core/contract/operations';
import { checkpointTable, receiptTable } from '../../../../core/checkpoints/arrow-results';
import { chooseFormat, microsIso, rowsOf, writeTableResult, type OutputFormat } from '../../../../core/cli/output';
import { hasCode } from '../../../../core/errors';

const ROW = {
  checkpoint_uuid: '018f0f4e-7b8c-7000-8000-0000000000aa',
  name: 'Release, "1.0"',
  description: null,
  generation_uuid: '4084179c-38db-8b6b-9b6e-c0b0a855e002',
  generation_manifest_sha256: '01c7bf2f2c443d85d31ff80fef4a36484e31402213e8d145371867bdb2addbe8',
  created_at: 1_767_225_600_123_456,
  created_by: null,
};
const table = checkpointTable([ROW as never]);

function run(format: OutputFormat, token: string | null): { out: Buffer; err: string } {
  const out: Buffer[] = [];
  let err = '';
  writeTableResult({ stdout: (c) => void out.push(Buffer.from(c)), stderr: (c) => void (err += c) }, format, table, token);
  return { out: Buffer.concat(out), err };
}

describe('cli output', () => {
  it('JSON rows have exactly the schema field names in order, lowercase UUIDs and hex, ISO microsecond UTC times', () => {
    const { out, err } = run('json', 'tok.1');
    const parsed = JSON.parse(out.toString());
    expect(Object.keys(parsed)).toEqual(['rows', 'next_page_token']);
    expect(parsed.next_page_token).toBe('tok.1');
    expect(Object.keys(parsed.rows[0])).toEqual(table.schema.fields.map((f) => f.name));
    expect(parsed.rows[0]).toEqual({ ...ROW, created_at: '2026-01-01T00:00:00.123456Z' });
    expect(err).toBe('');
  });

  it('--arrow writes the IPC stream with the next-page token in the schema metadata', () => {
    const t = tableFromIPC(run('arrow', 'tok.2').out);
    expect(t.schema.metadata.get(NEXT_PAGE_TOKEN_KEY)).toBe('tok.2');
    expect(t.getChild('name')?.get(0)).toBe(ROW.name);
    expect(tableFromIPC(run('arrow', null).out).schema.metadata.has(NEXT_PAGE_TOKEN_KEY)).toBe(false);
  });

  it('CSV quotes per RFC 4180, leaves nulls empty and puts the page hint on stderr', () => {
    const { out, err } = run('csv', 'tok.3');
    const [header, line] = out.toString().trimEnd().split('\n');
    expect(header).toBe('checkpoint_uuid,name,description,generation_uuid,generation_manifest_sha256,created_at,created_by');
    expect(line).toBe(`${ROW.checkpoint_uuid},"Release, ""1.0""",,${ROW.generation_uuid},${ROW.generation_manifest_sha256},2026-01-01T00:00:00.123456Z,`);
    expect(err).toBe('next page: --after tok.3\n');
  });

  it('the table form aligns columns under a header', () => {
    const lines = run('table', null).out.toString().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^checkpoint_uuid\s+name\s+description/);
    expect(lines[2]?.indexOf(ROW.generation_uuid)).toBe(lines[0]?.indexOf('generation_uuid'));
  });

  it('UInt64 and timestamps stay exact; formats are exclusive', () => {
    const receipt = rowsOf(receiptTable({
      operation: 'checkpoint', operation_uuid: ROW.checkpoint_uuid, checkpoint_uuid: ROW.checkpoint_uuid, name: 'x',
      source_generation_uuid: ROW.generation_uuid, prior_current_generation_uuid: null, result_generation_uuid: null,
      registry_revision: 7, committed_at: 1_767_225_600_000_001,
    } as never))[0];
    expect(receipt?.['registry_revision']).toBe(7);
    expect(receipt?.['committed_at']).toBe('2026-01-01T00:00:00.000001Z');
    expect(microsIso(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(chooseFormat({})).toBe('table');
    expect(chooseFormat({ csv: true })).toBe('csv');
    let caught: unknown;
    try {
      chooseFormat({ json: true, arrow: true });
    } catch (e) {
      caught = e;
    }
    expect(hasCode(caught, 'GF_VALIDATION')).toBe(true);
  });
});
