import { tableToIPC } from 'apache-arrow';
import type { Data, Field, Table } from 'apache-arrow';
import { RowFingerprinter } from '../canonical/row-fingerprints';
import { GfError } from '../errors';
import { columnsOf, compareCells, familyByKey } from '../participants/index';
import type { CellValue, Columns, RecordFamily } from '../participants/index';
import type { Lease, ManifestParticipant } from '../project/index';
import { PAGE_LIMITS as LIST_LIMIT, validateLimit } from '../contract/paging';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';

/**
 * Every mutating entry point a `CheckpointView` refuses.
 *
 * A view is a read surface over one pinned generation; each of these names
 * answers `GF_READ_ONLY_VIEW` at once, before any lock is requested, so a
 * view can never reach the writer (ADR-0014 "Read-only historical views").
 */
export const VIEW_MUTATORS = [
  'checkpoint',
  'deleteCheckpoint',
  'revertToCheckpoint',
  'publish',
  'withWriter',
  'adoptOntology',
  'clearOntology',
  'enableCapability',
  'refresh',
  'cleanup',
  'recover',
] as const;
export type ViewMutator = (typeof VIEW_MUTATORS)[number];

/** The identity of the checkpoint a view was opened from. */
export interface ViewIdentity {
  readonly checkpointUuid: string;
  readonly name: string;
  readonly registryRevision: number;
  /** The key of the view's record tokens, read when a token is. */
  readonly cursorKey: () => CursorKey;
}

/** One page of a family's records as Arrow IPC stream bytes, plus the keyset token of the next page. */
export interface RecordPage {
  readonly bytes: Uint8Array;
  readonly rowCount: number;
  readonly next: string | null;
}

/** A single record lookup: by identity values (field → cell) in the family's identity fields. */
export type IdentityValues = Readonly<Record<string, CellValue>>;

type TokenCell = { readonly s: string } | { readonly n: number } | { readonly b: string } | { readonly t: boolean } | null;

function toTokenCell(c: CellValue): TokenCell {
  if (c === null) return null;
  if (typeof c === 'string') return { s: c };
  if (typeof c === 'bigint') return { b: c.toString() };
  if (typeof c === 'boolean') return { t: c };
  return { n: c };
}

function fromTokenCell(c: unknown): CellValue {
  if (c === null) return null;
  if (typeof c !== 'object') throw invalidToken();
  const o = c as Record<string, unknown>;
  if (typeof o.s === 'string') return o.s;
  if (typeof o.b === 'string' && /^-?\d{1,40}$/.test(o.b)) return BigInt(o.b);
  if (typeof o.t === 'boolean') return o.t;
  if (typeof o.n === 'number' && Number.isSafeInteger(o.n)) return o.n;
  throw invalidToken();
}

function invalidToken(): GfError {
  return new GfError('GF_PAGE_INVALID', 'the page token is not valid for this view and family', { method: 'view.records' });
}

function readOnly(operation: string): GfError {
  return new GfError('GF_READ_ONLY_VIEW', 'a checkpoint view is read-only', { operation }, false);
}

/**
 * A read-only, lease-pinned view of one checkpoint's exact generation.
 *
 * Holds the generation's shared OS lease for its lifetime: deleting the
 * checkpoint's name, later publications and cleanup do not affect it. It is
 * structurally a diff endpoint (`checkpointUuid`, `generationUuid`,
 * `manifestSha256`, `participants`, `readParticipantBytes`, `release`), so
 * diff and revert read through it. It holds no writer, no project handle
 * and no registry store: there is nothing mutable to reach.
 */
export class CheckpointView {
  readonly checkpointUuid: string;
  readonly name: string;
  readonly registryRevision: number;
  readonly generationUuid: string;
  readonly manifestSha256: string;
  readonly #lease: Lease<Table>;
  readonly #cursorKey: () => CursorKey;
  readonly #columns = new Map<string, { readonly table: Table; readonly cols: Columns; readonly family: RecordFamily }>();
  /** What layers above built from this view (`derived`), by the function that built it. */
  readonly #derived = new Map<(view: CheckpointView) => unknown, unknown>();

  /** @internal Built by `openCheckpoint` after resolution and re-verification. */
  constructor(lease: Lease<Table>, identity: ViewIdentity) {
    this.#lease = lease;
    this.#cursorKey = identity.cursorKey;
    this.checkpointUuid = identity.checkpointUuid;
    this.name = identity.name;
    this.registryRevision = identity.registryRevision;
    this.generationUuid = lease.generationUuid;
    this.manifestSha256 = lease.manifestSha256;
  }

  /** True once released (reads then fail with `GF_PAGE_SNAPSHOT_GONE`). */
  get released(): boolean {
    return this.#lease.released;
  }

  /** The generation's participants, exactly as its manifest lists them. */
  get participants(): readonly ManifestParticipant[] {
    return this.#lease.manifest.participants;
  }

  /** Family keys (`<capability-id>/<record-family-id>`) of the participants. */
  families(): string[] {
    return this.#lease.families();
  }

  /** One participant's manifest entry, or undefined when the generation has none (the workspace documents read through it). */
  participant(familyKey: string): ManifestParticipant | undefined {
    return this.#lease.participant(familyKey);
  }

  /** One participant's decoded table, or undefined when the generation has none (verified as every view read is). */
  readTable(familyKey: string): Table | undefined {
    return this.#lease.participant(familyKey) === undefined ? undefined : this.#family(familyKey).table;
  }

  /** Exact stored bytes of one participant, verified against its digest. */
  readParticipantBytes(entry: Pick<ManifestParticipant, 'capabilityId' | 'recordFamilyId' | 'contentSha256' | 'byteLength'>): Uint8Array {
    const own = this.#lease.participant(`${entry.capabilityId}/${entry.recordFamilyId}`);
    if (own === undefined || own.contentSha256 !== entry.contentSha256) {
      throw new GfError('GF_VALIDATION', 'participant is not part of this view', { generation_uuid: this.generationUuid });
    }
    return this.#lease.readParticipantBytes(own);
  }

  #family(familyKey: string): { readonly table: Table; readonly cols: Columns; readonly family: RecordFamily } {
    const cached = this.#columns.get(familyKey);
    if (cached !== undefined) {
      if (this.#lease.released) throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'the view was released', { generation_uuid: this.generationUuid });
      return cached;
    }
    const family = familyByKey(familyKey);
    const table = this.#lease.readTable(familyKey);
    if (family === undefined || table === undefined) {
      throw new GfError('GF_VALIDATION', 'the view has no participant of this family', { family: familyKey.slice(0, 128) });
    }
    const entry = { table, cols: columnsOf(family, table), family };
    this.#columns.set(familyKey, entry);
    return entry;
  }

  /** First row whose identity is greater than `probe` (or ≥ with `inclusive`); rows are stored in identity order. */
  #seek(f: { readonly cols: Columns; readonly family: RecordFamily }, probe: readonly CellValue[], inclusive: boolean): number {
    const ids = f.family.identityFields.map((n) => f.cols.col(n));
    let lo = 0;
    let hi = f.cols.rowCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let c = 0;
      for (let k = 0; k < ids.length && c === 0; k++) c = compareCells((ids[k] as readonly CellValue[])[mid] as CellValue, probe[k] as CellValue);
      if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Record tokens are bound to this generation's manifest digest and the family (any page size). */
  #tokenScope(familyKey: string): CursorScope {
    return { operation: 'view.records', binding: [this.manifestSha256, familyKey], limit: null, bounds: LIST_LIMIT };
  }

  #decodeToken(familyKey: string, token: unknown, arity: number): CellValue[] {
    const after = decodeCursor(this.#cursorKey(), this.#tokenScope(familyKey), token, invalidToken);
    if (!Array.isArray(after) || after.length !== arity) throw invalidToken();
    return after.map(fromTokenCell);
  }

  #encodeToken(familyKey: string, identity: readonly CellValue[]): string {
    return encodeCursor(this.#cursorKey(), this.#tokenScope(familyKey), identity.map(toTokenCell));
  }

  /**
   * One page of a family's records in identity order, as Arrow IPC stream bytes.
   *
   * `after` is a keyset token over the family's sorted identity (bound to this
   * generation's manifest digest and the family); `limit` is 1–10,000, default 100.
   */
  readRecords(familyKey: string, page: { readonly limit?: unknown; readonly after?: unknown } = {}): RecordPage {
    const limit = validateLimit(page.limit ?? LIST_LIMIT.default);
    const f = this.#family(familyKey);
    const arity = f.family.identityFields.length;
    const start = page.after === undefined || page.after === null ? 0 : this.#seek(f, this.#decodeToken(familyKey, page.after, arity), false);
    const end = Math.min(start + limit, f.cols.rowCount);
    const slice = f.table.slice(start, end);
    const next = end < f.cols.rowCount && end > start
      ? this.#encodeToken(familyKey, f.family.identityFields.map((n) => f.cols.col(n)[end - 1] as CellValue))
      : null;
    return { bytes: tableToIPC(slice, 'stream'), rowCount: end - start, next };
  }

  /**
   * One record by its identity values, as Arrow IPC stream bytes (zero or one row).
   *
   * Every identity field of the family must be given, nothing else.
   */
  readRecord(familyKey: string, identity: IdentityValues): RecordPage {
    const f = this.#family(familyKey);
    const fields = f.family.identityFields;
    const keys = Object.keys(identity);
    if (keys.length !== fields.length || !fields.every((n) => Object.prototype.hasOwnProperty.call(identity, n))) {
      throw new GfError('GF_VALIDATION', 'identity must name exactly the family identity fields', { fields: [...fields] });
    }
    const probe = fields.map((n) => identity[n] as CellValue);
    const at = this.#seek(f, probe, true);
    const ids = fields.map((n) => f.cols.col(n));
    const hit = at < f.cols.rowCount && ids.every((col, k) => {
      const a = col[at] as CellValue;
      const b = probe[k] as CellValue;
      return typeof a === typeof b && compareCells(a, b) === 0;
    });
    const slice = f.table.slice(at, hit ? at + 1 : at);
    return { bytes: tableToIPC(slice, 'stream'), rowCount: hit ? 1 : 0, next: null };
  }

  /**
   * One record by its identity fingerprint (64 hex), as Arrow IPC stream bytes (zero or one row).
   *
   * The fingerprint is the family's canonical identity fingerprint (domain
   * `identityFingerprintDomain`, over the identity projection of the family
   * schema), exactly what record diff rows carry in
   * `record_identity_fingerprint`. Linear in the family's rows.
   */
  readRecordByFingerprint(familyKey: string, identityFingerprint: string): RecordPage {
    if (typeof identityFingerprint !== 'string' || !/^[0-9a-f]{64}$/.test(identityFingerprint)) {
      throw new GfError('GF_VALIDATION', 'identity fingerprint must be 64 lowercase hex', { field: 'identity_fingerprint' });
    }
    const f = this.#family(familyKey);
    const want = Buffer.from(identityFingerprint, 'hex');
    const fields = f.family.schema.fields;
    const idFields = f.family.identityFields.map((n) => fields.find((x) => x.name === n) as Field);
    const got = new Uint8Array(32);
    let offset = 0;
    for (const batch of f.table.batches) {
      const columns = f.family.identityFields.map((n) => batch.getChild(n)?.data[0] as Data);
      const fp = new RowFingerprinter(idFields, f.family.schema.metadata, columns, f.family.identityFingerprintDomain);
      for (let r = 0; r < batch.numRows; r++) {
        fp.into(r, got, 0);
        if (want.equals(got)) {
          const at = offset + r;
          return { bytes: tableToIPC(f.table.slice(at, at + 1), 'stream'), rowCount: 1, next: null };
        }
      }
      offset += batch.numRows;
    }
    return { bytes: tableToIPC(f.table.slice(0, 0), 'stream'), rowCount: 0, next: null };
  }

  /** Drops the lease (idempotent). The generation becomes eligible for ordinary retention. */
  release(): void {
    this.#columns.clear();
    this.#derived.clear();
    this.#lease.release();
  }

  /**
   * What `make` builds from this view (a graph index), built on first use and
   * kept for the view's lifetime: forgotten at `release`, never shared with
   * another view. For layers that may not be imported from here.
   */
  derived<T>(make: (view: CheckpointView) => T): T {
    if (this.#derived.has(make)) return this.#derived.get(make) as T;
    const v = make(this);
    this.#derived.set(make, v);
    return v;
  }

  /** Refused: a view cannot create checkpoints. */
  checkpoint(..._args: unknown[]): never {
    throw readOnly('checkpoint');
  }
  /** Refused: a view cannot delete checkpoints. */
  deleteCheckpoint(..._args: unknown[]): never {
    throw readOnly('deleteCheckpoint');
  }
  /** Refused: a view cannot revert. */
  revertToCheckpoint(..._args: unknown[]): never {
    throw readOnly('revertToCheckpoint');
  }
  /** Refused: a view cannot publish a generation. */
  publish(..._args: unknown[]): never {
    throw readOnly('publish');
  }
  /** Refused: a view never reaches the writer lock. */
  withWriter(..._args: unknown[]): never {
    throw readOnly('withWriter');
  }
  /** Refused: ontology adoption is a mutation. */
  adoptOntology(..._args: unknown[]): never {
    throw readOnly('adoptOntology');
  }
  /** Refused: clearing the ontology is a mutation. */
  clearOntology(..._args: unknown[]): never {
    throw readOnly('clearOntology');
  }
  /** Refused: capability enablement is a mutation. */
  enableCapability(..._args: unknown[]): never {
    throw readOnly('enableCapability');
  }
  /** Refused: refresh/publication is a mutation. */
  refresh(..._args: unknown[]): never {
    throw readOnly('refresh');
  }
  /** Refused: cleanup needs the writer. */
  cleanup(..._args: unknown[]): never {
    throw readOnly('cleanup');
  }
  /** Refused: recovery needs the writer. */
  recover(..._args: unknown[]): never {
    throw readOnly('recover');
  }
}
