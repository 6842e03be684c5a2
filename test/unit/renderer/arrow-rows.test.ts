import { Field, FixedSizeBinary, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableToIPC, vectorFromArray, type Data } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeArrow, tableRows } from '../../../renderer/arrow-rows';

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 17) & 0xff);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const uuid = (b: Uint8Array): string => hex(b).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

function fixed(width: number, values: readonly (Uint8Array | null)[]): Data<FixedSizeBinary> {
  const data = new Uint8Array(values.length * width);
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) {
      data.set(v, i * width);
      bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
    }
  });
  const nulls = values.filter((v) => v === null).length;
  return makeData({ type: new FixedSizeBinary(width), length: values.length, data, nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bitmap } : {}) });
}

const schema = new Schema([new Field('id', new FixedSizeBinary(16), true), new Field('digest', new FixedSizeBinary(32), false), new Field('kind', new Utf8(), true)]);
const TEXTS: readonly (readonly (string | null)[])[] = [
  ['added', 'removed', null, 'modified', 'a,b', '', 'x'],
  // Non-ASCII text: byte offsets are not character offsets (decoded cell by cell).
  ['modifié', 'ünïcode', 'plain', null, '日本', 'z', ''],
];
const ids = TEXTS.map((t, b) => t.map((_, i) => ((b * 7 + i) % 3 === 1 ? null : bytes(16, b * 7 + i))));
const digests = TEXTS.map((t, b) => t.map((_, i) => bytes(32, 1000 + b * 7 + i)));

function table(): Table {
  const batches = TEXTS.map((texts, b) => {
    const children = [fixed(16, ids[b]!), fixed(32, digests[b]!), vectorFromArray([...texts], new Utf8()).data[0]!];
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: texts.length, children, nullCount: 0 }));
  });
  return new Table(batches);
}

const expected = TEXTS.flatMap((texts, b) =>
  texts.map((kind, i) => {
    const id = ids[b]![i]!;
    return { id: id === null ? null : uuid(id), digest: hex(digests[b]![i]!), kind };
  }),
);

describe('arrow-rows display decoding', () => {
  it('uuids (with nulls), digests and text decode to canonical UUID text, lowercase hex and the text, across batches and non-ASCII text', () => {
    const t = table();
    expect(t.batches.length).toBe(2);
    expect(tableRows(t).rows).toEqual(expected);
    const page = decodeArrow(tableToIPC(t, 'stream'), 'view.records');
    expect(page.columns).toEqual(['id', 'digest', 'kind']);
    expect(page.rows).toEqual(expected);
  });

  it('a sliced table decodes the slice, not the buffer start', () => {
    const t = table().slice(3, 10);
    expect(tableRows(t).rows).toEqual(expected.slice(3, 10));
  });
});
