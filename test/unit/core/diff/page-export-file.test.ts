import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArrowStreamFile } from '../../../../core/diff/page-export-file';
import { hasCode } from '../../../../core/errors';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-export-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A table of `batches` record batches of `rows` rows (text, numbers and nulls). */
function table(batches: number, rows: number): Table {
  const n = batches * rows;
  const whole = new Table({
    record_id: vectorFromArray(
      Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `node-${i}`)),
      new Utf8(),
    ),
    changed_cells: vectorFromArray(Int32Array.from({ length: n }, (_, i) => (i * 7) % 5)),
  });
  if (batches === 0) return whole;
  return new Table(Array.from({ length: batches }, (_, b) => whole.slice(b * rows, (b + 1) * rows).batches).flat());
}

describe('writeArrowStreamFile (the export of a whole record diff)', () => {
  it.each([
    [3, 1_000],
    [1, 0],
    [0, 0],
  ])('writes exactly tableToIPC(table, "stream") (%i batches of %i rows), and nothing beside it', (batches, rows) => {
    const t = table(batches, rows);
    const file = path.join(dir, `diff-${batches}-${rows}.arrows`);
    const r = writeArrowStreamFile(file, t);
    const expected = tableToIPC(t, 'stream');
    expect(Buffer.from(fs.readFileSync(file)).equals(Buffer.from(expected))).toBe(true);
    expect(r.byteLength).toBe(expected.length);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('replaces an earlier export whole; a failed export is GF_IO, names no path and leaves no temporary', () => {
    const file = path.join(dir, 'replace.arrows');
    writeArrowStreamFile(file, table(2, 10));
    writeArrowStreamFile(file, table(1, 3));
    expect(fs.readFileSync(file).equals(Buffer.from(tableToIPC(table(1, 3), 'stream')))).toBe(true);
    // The target is a directory: the rename fails after every byte was written.
    const blocked = path.join(dir, 'blocked.arrows');
    fs.mkdirSync(blocked);
    let caught: unknown;
    try {
      writeArrowStreamFile(blocked, table(2, 10));
    } catch (e) {
      caught = e;
    }
    expect(hasCode(caught, 'GF_IO')).toBe(true);
    expect(String((caught as Error).message)).not.toContain(dir);
    expect(fs.statSync(blocked).isDirectory()).toBe(true);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
