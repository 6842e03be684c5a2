import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Field, FixedSizeBinary, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { canonicalJson, sha256Hex } from '../canonical/index';
import type { DiffAdapter } from './adapters';
import { RECORD_CHANGE_KINDS } from './contract';
import type { RecordChangeKind } from './contract';
import type { EndpointParticipant } from './endpoint';
import type { RecordChange } from './record-diff';

/**
 * A derived store of one family's complete, sorted change list between two
 * participant objects.
 *
 * Keyed by the adapter tuple and both objects' `content_sha256`, so an
 * entry is a pure function of immutable inputs: never authoritative,
 * rebuilt when missing or invalid, and safe to share between endpoints
 * that happen to hold the same objects.
 */
export interface ChangeCache {
  load(key: string): Table | undefined;
  store(key: string, table: Table): void;
}

/** Format version of cached change lists (part of every key). */
export const CHANGE_CACHE_FORMAT = 'graphforge-diff-changes/1';

/** The cache key of a family's changes between two participants (either may be absent). */
export function changeCacheKey(adapter: DiffAdapter, from: EndpointParticipant | undefined, to: EndpointParticipant | undefined): string {
  return sha256Hex(
    new TextEncoder().encode(
      canonicalJson({
        format: CHANGE_CACHE_FORMAT,
        adapter: [adapter.capabilityId, adapter.capabilityVersion, adapter.recordFamilyId, adapter.recordVersion, adapter.encoding, adapter.schemaFingerprint],
        from: from?.contentSha256 ?? null,
        to: to?.contentSha256 ?? null,
      }),
    ),
  );
}

const CHANGES_SCHEMA = new Schema([
  new Field('record_uuid', new FixedSizeBinary(16), true),
  new Field('record_identity_fingerprint', new FixedSizeBinary(32), false),
  new Field('change_kind', new Utf8(), false),
  new Field('from_record_fingerprint', new FixedSizeBinary(32), true),
  new Field('to_record_fingerprint', new FixedSizeBinary(32), true),
]);

function fixed(width: number, cells: readonly (Uint8Array | null)[]): Data {
  const data = new Uint8Array(cells.length * width);
  const bitmap = new Uint8Array(Math.ceil(cells.length / 8));
  let nulls = 0;
  cells.forEach((c, i) => {
    if (c === null) nulls++;
    else {
      data.set(c, i * width);
      bitmap[i >> 3] = (bitmap[i >> 3] as number) | (1 << (i & 7));
    }
  });
  return makeData({ type: new FixedSizeBinary(width), length: cells.length, data, nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bitmap } : {}) });
}

/** One family's sorted changes as a compact Arrow table (identities and fingerprints only). */
export function changesTable(changes: readonly RecordChange[]): Table {
  const enc = changes.map((c) => Buffer.from(c.changeKind, 'utf8'));
  const valueOffsets = new Int32Array(changes.length + 1);
  enc.forEach((b, i) => {
    valueOffsets[i + 1] = (valueOffsets[i] as number) + b.length;
  });
  const text = new Uint8Array(valueOffsets[changes.length] as number);
  enc.forEach((b, i) => text.set(b, valueOffsets[i] as number));
  const children = [
    fixed(16, changes.map((c) => c.recordUuid)),
    fixed(32, changes.map((c) => c.identityFingerprint)),
    makeData({ type: new Utf8(), length: changes.length, data: text, valueOffsets, nullCount: 0 }),
    fixed(32, changes.map((c) => c.fromFingerprint)),
    fixed(32, changes.map((c) => c.toFingerprint)),
  ];
  const struct = makeData({ type: new Struct(CHANGES_SCHEMA.fields), length: changes.length, nullCount: 0, children });
  return new Table([new RecordBatch(CHANGES_SCHEMA, struct)]);
}

/** Reads cached change rows by index (copies out only what a page needs). */
export class CachedChanges {
  readonly rows: number;
  readonly #uuid: Data;
  readonly #id: Data;
  readonly #kind: Data;
  readonly #from: Data;
  readonly #to: Data;
  readonly #scope: string;
  readonly #family: string;

  constructor(table: Table, adapter: DiffAdapter) {
    if (table.batches.length > 1) throw new Error('invariant violated: cached changes are one batch');
    this.rows = table.numRows;
    const cols = table.numRows === 0 ? changesTable([]).batches[0]!.data.children : (table.batches[0]!.data.children as Data[]);
    [this.#uuid, this.#id, this.#kind, this.#from, this.#to] = cols as [Data, Data, Data, Data, Data];
    this.#scope = adapter.scope;
    this.#family = adapter.recordFamilyId;
  }

  static #cell(d: Data, i: number, w: number): Uint8Array | null {
    if (d.nullCount > 0 && !d.getValid(i)) return null;
    return (d.values as Uint8Array).slice(i * w, i * w + w);
  }

  /** The change at row `i`. */
  at(i: number): RecordChange {
    const o = this.#kind.valueOffsets as Int32Array;
    const kind = Buffer.from((this.#kind.values as Uint8Array).subarray(o[i] as number, o[i + 1] as number)).toString('utf8');
    if (!(RECORD_CHANGE_KINDS as readonly string[]).includes(kind)) throw new Error('invariant violated: cached change kind');
    return {
      scope: this.#scope,
      recordFamilyId: this.#family,
      recordUuid: CachedChanges.#cell(this.#uuid, i, 16),
      identityFingerprint: CachedChanges.#cell(this.#id, i, 32) as Uint8Array,
      changeKind: kind as RecordChangeKind,
      fromFingerprint: CachedChanges.#cell(this.#from, i, 32),
      toFingerprint: CachedChanges.#cell(this.#to, i, 32),
    };
  }
}

/** Project-relative directory of cached change lists. */
export const CHANGE_CACHE_DIR = ['cache', 'diff', 'changes'] as const;

function isDir(p: string): boolean {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory();
}

/**
 * Change lists cached under the project's `cache/diff/changes/`.
 *
 * Each entry is `<key>.arrow` plus `<key>.sha256` (SHA-256 of the Arrow
 * bytes); names are machine-made hex only. A missing, unreadable, linked
 * or checksum-mismatched entry is a miss and is rebuilt; a failed write
 * is ignored (the cache is an optimisation, never required).
 */
export class DiskChangeCache implements ChangeCache {
  readonly #root: string;
  readonly #dir: string;

  constructor(projectRoot: string) {
    this.#root = projectRoot;
    this.#dir = path.join(projectRoot, ...CHANGE_CACHE_DIR);
  }

  #files(key: string): { readonly data: string; readonly sum: string } {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('invariant violated: cache keys are 64 hex');
    return { data: path.join(this.#dir, `${key}.arrow`), sum: path.join(this.#dir, `${key}.sha256`) };
  }

  #read(file: string): Buffer | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return undefined;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > 1 << 30) return undefined;
      const buf = Buffer.alloc(st.size);
      return fs.readSync(fd, buf, 0, st.size, 0) === st.size ? buf : undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  load(key: string): Table | undefined {
    const f = this.#files(key);
    const sum = this.#read(f.sum);
    const data = sum === undefined ? undefined : this.#read(f.data);
    if (sum === undefined || data === undefined || sum.toString('utf8') !== `${sha256Hex(data)}\n`) return undefined;
    try {
      const t = tableFromIPC(data);
      return t.schema.fields.length === CHANGES_SCHEMA.fields.length && t.batches.length <= 1 ? t : undefined;
    } catch {
      return undefined;
    }
  }

  store(key: string, table: Table): void {
    const f = this.#files(key);
    try {
      for (let k = 1; k <= CHANGE_CACHE_DIR.length; k++) {
        const d = path.join(this.#root, ...CHANGE_CACHE_DIR.slice(0, k));
        if (!isDir(d)) fs.mkdirSync(d, { mode: 0o700 });
        if (!isDir(d)) return;
      }
      const bytes = tableToIPC(table, 'file');
      const tag = randomBytes(6).toString('hex');
      const put = (file: string, content: Uint8Array | string): void => {
        const tmp = `${file}.${tag}.tmp`;
        fs.writeFileSync(tmp, content, { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file);
      };
      put(f.data, bytes);
      put(f.sum, `${sha256Hex(bytes)}\n`);
    } catch {
      // A cache write failure never fails the diff.
    }
  }
}
