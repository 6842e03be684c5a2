// Reader leases: CURRENT and manifests read and validated, a generation pinned
// against cleanup while a reader holds it.
import { GfError } from '../errors';
import type { FamilyDescriptor, ParticipantCatalog } from './catalog';
import fs from 'node:fs';
import { checkDir, corrupt, listDir, readFileNoFollow } from './durable-fs';
import { listJournals, readJournal } from './journal';
import { CURRENT_MAX_BYTES, MANIFEST_MAX_BYTES, familyKeyOf, manifestDigest, parseCurrent, parseManifest } from './formats';
import type { ManifestMemo } from './formats';
import type { ProjectCaches } from './project-caches';
import type { CurrentPointer, Manifest, ManifestParticipant } from './formats';
import { LAYOUT, generationDir, journalPlace, leasePlace, manifestPlace, place } from './layout';
import { tryShared } from './sqlite-lock';
import type { HeldLock } from './sqlite-lock';
import { readObjectVerified } from './verified-objects';

/**
 * Reads and validates CURRENT; null when the project is uninitialized.
 *
 * An absent CURRENT means uninitialized only when nothing shows that a
 * generation was ever published (GENERATIONS.md "Recovery"); otherwise it is
 * `GF_PROJECT_CORRUPT` naming `CURRENT`, so nothing publishes a new root
 * lineage over (and cleans up) the old one until an explicit repair.
 */
export function readCurrent(root: string): CurrentPointer | null {
  const p = place(root, LAYOUT.current);
  const bytes = readFileNoFollow(p.abs, p.rel, CURRENT_MAX_BYTES);
  if (bytes !== undefined) return parseCurrent(bytes);
  const evidence = publishedEvidence(root);
  if (evidence !== undefined) {
    throw new GfError('GF_PROJECT_CORRUPT', 'CURRENT is missing from a project that holds published data (run `gf doctor --repair`)', {
      name: LAYOUT.current,
      evidence,
    });
  }
  return null;
}

/** Machine-owned files whose presence proves a checkpoint registry existed. */
const REGISTRY_EVIDENCE = ['checkpoints/registry.json', 'checkpoints/registry.json.sha256', 'checkpoints/registry.txn.json', 'history/lineage.jsonl'] as const;

/**
 * The first machine-owned entry that proves a generation was published (its relative name), or undefined.
 *
 * An interrupted *first* publication leaves a journal with no parent that
 * never reached PUBLISHED and, at most, the one generation directory that
 * journal names: that is still an uninitialized project. Anything else (a
 * published or child journal, any other generation directory, a checkpoint
 * registry, a lineage log) is evidence.
 */
export function publishedEvidence(root: string): string | undefined {
  for (const rel of REGISTRY_EVIDENCE) {
    const f = place(root, rel);
    if (fs.lstatSync(f.abs, { throwIfNoEntry: false }) !== undefined) return rel;
  }
  const firstAttempts = new Set<string>();
  const js = listJournals(root);
  for (const txn of js.transactions) {
    const j = readJournal(root, txn);
    if (j === undefined) continue;
    if (j.state === 'PUBLISHED' || j.parentGenerationUuid !== null) return journalPlace(root, txn).rel;
    firstAttempts.add(j.generationUuid);
  }
  const gens = place(root, LAYOUT.generations);
  for (const ent of listDir(gens.abs, gens.rel)) {
    if (!firstAttempts.has(ent.name)) return `${gens.rel}/${ent.name}`;
  }
  return undefined;
}

/** Reads a generation's manifest bytes (no link following); `GF_PROJECT_CORRUPT` when missing. */
export function readManifestBytes(root: string, generationUuid: string): Uint8Array {
  const dir = generationDir(root, generationUuid);
  if (!checkDir(dir.abs, dir.rel)) throw corrupt('generation is missing', dir.rel);
  const p = manifestPlace(root, generationUuid);
  const bytes = readFileNoFollow(p.abs, p.rel, MANIFEST_MAX_BYTES);
  if (bytes === undefined) throw corrupt('manifest is missing', p.rel);
  return bytes;
}

/** Parses a manifest (through the project's `memo`, when given) and checks it names the generation it was read from. */
export function loadManifest(root: string, generationUuid: string, bytes: Uint8Array, memo: ManifestMemo | undefined): Manifest {
  const rel = manifestPlace(root, generationUuid).rel;
  const m = memo === undefined ? parseManifest(bytes, rel) : memo.parse(bytes, rel);
  if (m.generationUuid !== generationUuid) throw corrupt('manifest names another generation', rel);
  return m;
}

export { readObjectVerified, readObjectVerifiedAsync } from './verified-objects';

/**
 * A pinned, read-only snapshot of one generation.
 *
 * Holds the generation's shared OS lease for its lifetime: cleanup cannot
 * move the generation or delete its objects while the lease is held, and the
 * OS drops the lease if the process dies. A lease never follows a later
 * CURRENT. Views, diff and revert read through it.
 */
export class Lease<T = unknown> {
  /** The pinned generation. */
  readonly generationUuid: string;
  /** SHA-256 of the exact manifest bytes (what CURRENT or a checkpoint row names). */
  readonly manifestSha256: string;
  /** The parsed manifest. */
  readonly manifest: Manifest;
  /** The exact manifest bytes. */
  readonly manifestBytes: Uint8Array;
  /** The caches of the project the lease was taken from (its objects are verified through them). */
  readonly caches: ProjectCaches;
  readonly #root: string;
  readonly #catalog: ParticipantCatalog<T> | undefined;
  #lock: HeldLock | undefined;

  /** @internal Built by `acquireLease`; not constructed by callers. */
  constructor(root: string, catalog: ParticipantCatalog<T> | undefined, caches: ProjectCaches, manifestBytes: Uint8Array, manifest: Manifest, lock: HeldLock) {
    this.#root = root;
    this.#catalog = catalog;
    this.caches = caches;
    this.manifestBytes = manifestBytes;
    this.manifest = manifest;
    this.generationUuid = manifest.generationUuid;
    this.manifestSha256 = manifestDigest(manifestBytes);
    this.#lock = lock;
  }

  /** True once `release` ran. */
  get released(): boolean {
    return this.#lock === undefined;
  }

  /** Family keys (`<capability-id>/<record-family-id>`) present in this generation, in manifest order. */
  families(): string[] {
    return this.manifest.participants.map(familyKeyOf);
  }

  /** The manifest entry of one family, or undefined. */
  participant(familyKey: string): ManifestParticipant | undefined {
    return this.manifest.participants.find((p) => familyKeyOf(p) === familyKey);
  }

  /** The exact participant bytes, verified against the object's name, length and SHA-256. */
  readParticipantBytes(entry: ManifestParticipant): Uint8Array {
    this.#live();
    if (!this.manifest.participants.includes(entry)) {
      const own = this.participant(familyKeyOf(entry));
      if (own === undefined || own.contentSha256 !== entry.contentSha256) {
        throw new GfError('GF_VALIDATION', 'participant is not part of this generation', { generation_uuid: this.generationUuid });
      }
    }
    return readObjectVerified(this.#root, entry, this.caches.verifiedObjects);
  }

  /**
   * The decoded table of one family, or undefined when the generation has none.
   *
   * The family must be registered with the same schema fingerprint;
   * otherwise `GF_SCHEMA_MISMATCH` (never a silent reduction).
   */
  readTable(familyKey: string): T | undefined {
    this.#live();
    const entry = this.participant(familyKey);
    if (entry === undefined) return undefined;
    const family = this.#family(entry);
    return this.#requireCatalog().decode(family, this.readParticipantBytes(entry)).table;
  }

  /** Verifies the objects of the given families (default: all) against their names. */
  verifyParticipants(familyKeys?: Iterable<string>): void {
    this.#live();
    const keys = familyKeys === undefined ? undefined : new Set(familyKeys);
    for (const p of this.manifest.participants) {
      if (keys === undefined || keys.has(familyKeyOf(p))) readObjectVerified(this.#root, p, this.caches.verifiedObjects);
    }
  }

  /** Drops the shared lease (idempotent). */
  release(): void {
    const l = this.#lock;
    this.#lock = undefined;
    l?.release();
  }

  #live(): void {
    if (this.#lock === undefined) throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'the lease was released', { generation_uuid: this.generationUuid });
  }

  #requireCatalog(): ParticipantCatalog<T> {
    if (this.#catalog === undefined) throw new GfError('GF_VALIDATION', 'no participant catalog configured', {});
    return this.#catalog;
  }

  #family(entry: ManifestParticipant): FamilyDescriptor {
    const f = this.#requireCatalog().family(entry.capabilityId, entry.recordFamilyId);
    if (f === undefined || f.schemaFingerprint !== entry.schemaFingerprint || f.encoding !== entry.encoding) {
      throw new GfError('GF_SCHEMA_MISMATCH', 'participant family is not registered with this schema', {
        family: familyKeyOf(entry).slice(0, 128),
        schema_fingerprint: entry.schemaFingerprint,
      });
    }
    return f;
  }
}

/**
 * Pins one generation: shared lease, then manifest digest verification.
 *
 * `expectedSha256` is what CURRENT or a checkpoint row names; a mismatch is
 * `GF_PROJECT_CORRUPT`. Returns 'gone' when the generation or its lease file
 * does not exist or cleanup holds it (the caller re-resolves).
 */
export function tryLeaseGeneration<T>(
  root: string,
  catalog: ParticipantCatalog<T> | undefined,
  generationUuid: string,
  expectedSha256: string | undefined,
  caches: ProjectCaches,
): Lease<T> | 'gone' {
  const dir = generationDir(root, generationUuid);
  if (!checkDir(dir.abs, dir.rel)) return 'gone';
  const lp = leasePlace(root, generationUuid);
  const attempt = tryShared(lp.abs, lp.rel);
  if (attempt.kind !== 'held') return 'gone';
  try {
    if (!checkDir(dir.abs, dir.rel)) {
      attempt.lock.release();
      return 'gone';
    }
    const bytes = readManifestBytes(root, generationUuid);
    if (expectedSha256 !== undefined && manifestDigest(bytes) !== expectedSha256) {
      throw corrupt('manifest digest does not match', manifestPlace(root, generationUuid).rel);
    }
    const m = loadManifest(root, generationUuid, bytes, caches.manifests);
    return new Lease(root, catalog, caches, bytes, m, attempt.lock);
  } catch (e) {
    attempt.lock.release();
    throw e;
  }
}

const LEASE_ATTEMPTS = 16;

/**
 * Pins the generation CURRENT names (GENERATIONS.md "Reader lease").
 *
 * Read CURRENT, lease, re-read CURRENT; if it moved, retry with the new one.
 * A malformed CURRENT, a missing current generation or a digest mismatch is
 * `GF_PROJECT_CORRUPT`: never a fallback to another generation.
 */
export function leaseCurrent<T>(root: string, catalog: ParticipantCatalog<T> | undefined, caches: ProjectCaches): Lease<T> {
  for (let i = 0; i < LEASE_ATTEMPTS; i++) {
    const cur = readCurrent(root);
    if (cur === null) throw new GfError('GF_PROJECT_UNINITIALIZED', 'the project has no published generation', {});
    let got: Lease<T> | 'gone';
    try {
      got = tryLeaseGeneration(root, catalog, cur.generationUuid, cur.manifestSha256, caches);
    } catch (e) {
      const again = readCurrent(root);
      if (again !== null && again.generationUuid !== cur.generationUuid) continue;
      throw e;
    }
    const again = readCurrent(root);
    if (got !== 'gone' && again !== null && again.generationUuid === cur.generationUuid && again.manifestSha256 === cur.manifestSha256) {
      return got;
    }
    if (got !== 'gone') got.release();
    if (again === null || (again.generationUuid === cur.generationUuid && again.manifestSha256 === cur.manifestSha256)) {
      // CURRENT did not move, yet its generation cannot be pinned: never fall back.
      throw corrupt('the current generation is missing', generationDir(root, cur.generationUuid).rel);
    }
  }
  throw new GfError('GF_IO', 'CURRENT kept changing while pinning', { attempts: LEASE_ATTEMPTS });
}
