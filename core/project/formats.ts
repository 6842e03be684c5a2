// Byte formats of the project container: FORMAT, CURRENT, manifests and journals.
import { z } from 'zod';
import { BoundedCache, canonicalJson, compareCodePoints, isCanonicalUuid, orderedJson, sha256Hex } from '../canonical/index';
import { GfError } from '../errors';
import { LINEAGE_KINDS, type LineageKind } from '../contract/history';

/**
 * Byte formats of the project container: FORMAT, CURRENT, manifests, journals.
 *
 * Pure encode/parse functions. Every parser accepts only the exact bytes its
 * encoder produces (parse, re-encode, compare), so two spellings of one value
 * can never both be valid and a digest always names one document.
 */

/** The immutable FORMAT file bytes. */
export const FORMAT_BYTES: Uint8Array = new TextEncoder().encode('graphforge-project/v1\n');

/** Upper bound for CURRENT (it is ~190 bytes). */
export const CURRENT_MAX_BYTES = 1024;
/** Upper bound for one manifest. */
export const MANIFEST_MAX_BYTES = 16 * 1024 * 1024;
/** Upper bound for one journal. */
export const JOURNAL_MAX_BYTES = 1024 * 1024;

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** What CURRENT says: the live generation and its manifest digest. */
export interface CurrentPointer {
  /** The live generation's UUID (lowercase RFC form). */
  readonly generationUuid: string;
  /** SHA-256 (64 lowercase hex) over the exact manifest bytes, final LF included. */
  readonly manifestSha256: string;
}

/** CURRENT bytes, exactly: fixed key order, no spaces, one trailing LF. */
export function encodeCurrent(p: CurrentPointer): Uint8Array {
  return enc.encode(
    `${orderedJson({
      format: 'graphforge-project',
      format_version: 1,
      generation_uuid: p.generationUuid,
      generation_manifest_sha256: p.manifestSha256,
    })}\n`,
  );
}

const CURRENT_RE =
  /^\{"format":"graphforge-project","format_version":1,"generation_uuid":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})","generation_manifest_sha256":"([0-9a-f]{64})"\}\n$/;

/** Parses CURRENT; anything but the exact encoding is `GF_PROJECT_CORRUPT`. */
export function parseCurrent(bytes: Uint8Array): CurrentPointer {
  let text: string;
  try {
    text = dec.decode(bytes);
  } catch {
    throw new GfError('GF_PROJECT_CORRUPT', 'CURRENT is not UTF-8', { name: 'CURRENT' });
  }
  const m = CURRENT_RE.exec(text);
  if (m === null) throw new GfError('GF_PROJECT_CORRUPT', 'CURRENT is malformed', { name: 'CURRENT', size: bytes.length });
  return { generationUuid: m[1] as string, manifestSha256: m[2] as string };
}

/** The participant encodings the registry declares. */
export const ENCODINGS = ['arrow', 'json'] as const;
/** One participant encoding. */
export type Encoding = (typeof ENCODINGS)[number];

/** One manifest participant entry (camelCase mirror of the on-disk snake_case keys, same order). */
export interface ManifestParticipant {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
  readonly recordFamilyId: string;
  readonly recordVersion: number;
  /** Logical name `<capability-id>/<record-family-id>.<encoding>`; never a storage path. */
  readonly relativePath: string;
  readonly encoding: Encoding;
  readonly byteLength: number;
  readonly rowCount: number;
  readonly schemaFingerprint: string;
  /** SHA-256 of the exact stored bytes; also the object's name under `objects/sha256/`. */
  readonly contentSha256: string;
}

/** One capability entry of a manifest. */
export interface ManifestCapability {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
}

/** A parsed generation manifest. */
export interface Manifest {
  readonly generationUuid: string;
  readonly parentGenerationUuid: string | null;
  readonly transactionUuid: string;
  readonly capabilities: readonly ManifestCapability[];
  readonly participants: readonly ManifestParticipant[];
}

/** The key a record family is addressed by: `<capability-id>/<record-family-id>`. */
export function familyKeyOf(p: { readonly capabilityId: string; readonly recordFamilyId: string }): string {
  return `${p.capabilityId}/${p.recordFamilyId}`;
}

/** Manifest participant order: `(capability_id, record_family_id, relative_path)` by code point. */
export function compareParticipants(a: ManifestParticipant, b: ManifestParticipant): number {
  return (
    compareCodePoints(a.capabilityId, b.capabilityId) ||
    compareCodePoints(a.recordFamilyId, b.recordFamilyId) ||
    compareCodePoints(a.relativePath, b.relativePath)
  );
}

/** Capabilities derived from participants: one per capability id, sorted; conflicting versions are `GF_VALIDATION`. */
export function capabilitiesOf(participants: readonly ManifestParticipant[]): ManifestCapability[] {
  const byId = new Map<string, number>();
  for (const p of participants) {
    const v = byId.get(p.capabilityId);
    if (v !== undefined && v !== p.capabilityVersion) {
      throw new GfError('GF_VALIDATION', 'participants disagree on a capability version', {
        capability_id: p.capabilityId.slice(0, 64),
      });
    }
    byId.set(p.capabilityId, p.capabilityVersion);
  }
  return [...byId.entries()]
    .sort((a, b) => compareCodePoints(a[0], b[0]))
    .map(([capabilityId, capabilityVersion]) => ({ capabilityId, capabilityVersion }));
}

/** Manifest bytes: canonical JSON + LF, keys in the documented order, lists sorted. */
/**
 * One participant in its manifest JSON form (snake_case, in the manifest's fixed key order).
 *
 * Also the shape the CLI and the operation contract show for a view's participants.
 */
export function manifestEntryJson(p: ManifestParticipant): {
  readonly capability_id: string;
  readonly capability_version: number;
  readonly record_family_id: string;
  readonly record_version: number;
  readonly relative_path: string;
  readonly encoding: ManifestParticipant['encoding'];
  readonly byte_length: number;
  readonly row_count: number;
  readonly schema_fingerprint: string;
  readonly content_sha256: string;
} {
  return {
    capability_id: p.capabilityId,
    capability_version: p.capabilityVersion,
    record_family_id: p.recordFamilyId,
    record_version: p.recordVersion,
    relative_path: p.relativePath,
    encoding: p.encoding,
    byte_length: p.byteLength,
    row_count: p.rowCount,
    schema_fingerprint: p.schemaFingerprint,
    content_sha256: p.contentSha256,
  };
}

export function encodeManifest(m: Manifest): Uint8Array {
  const participants = [...m.participants].sort(compareParticipants);
  const doc = {
    format: 'graphforge-generation',
    format_version: 1,
    generation_uuid: m.generationUuid,
    parent_generation_uuid: m.parentGenerationUuid,
    transaction_uuid: m.transactionUuid,
    capabilities: [...m.capabilities]
      .sort((a, b) => compareCodePoints(a.capabilityId, b.capabilityId))
      .map((c) => ({ capability_id: c.capabilityId, capability_version: c.capabilityVersion })),
    participants: participants.map(manifestEntryJson),
  };
  return enc.encode(`${orderedJson(doc)}\n`);
}

const UUID = z.string().refine((s) => isCanonicalUuid(s));
const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);
const NAME = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,127}$/);
const COUNT = z.number().int().nonnegative();

const ManifestSchema = z.strictObject({
  format: z.literal('graphforge-generation'),
  format_version: z.literal(1),
  generation_uuid: UUID,
  parent_generation_uuid: UUID.nullable(),
  transaction_uuid: UUID,
  capabilities: z.array(z.strictObject({ capability_id: NAME, capability_version: COUNT })),
  participants: z.array(
    z.strictObject({
      capability_id: NAME,
      capability_version: COUNT,
      record_family_id: NAME,
      record_version: COUNT,
      relative_path: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,127}\/[a-z0-9][a-z0-9_.-]{0,127}$/),
      encoding: z.enum(ENCODINGS),
      byte_length: COUNT,
      row_count: COUNT,
      schema_fingerprint: HEX64,
      content_sha256: HEX64,
    }),
  ),
});

/**
 * Parses manifest bytes; anything but the exact canonical encoding is `GF_PROJECT_CORRUPT`.
 *
 * Also refuses duplicate families and a capability list that does not match
 * the participants, so a manifest that parses is internally consistent.
 * `ManifestMemo.parse` is the same, remembered by digest.
 */
export function parseManifest(bytes: Uint8Array, rel: string): Manifest {
  return parseManifestUncached(bytes, rel);
}

/** Manifests an open project remembers, by the SHA-256 of their exact bytes (bounded, least recently used out first). */
const PARSED_MANIFESTS_MAX = 64;

/**
 * Manifests one open project accepted, by the SHA-256 of their exact bytes
 * (`ProjectCaches.manifests`).
 *
 * Parsing is a pure function of the bytes, so a manifest already accepted is
 * recognized by its digest and never goes stale; bounded, least recently
 * used forgotten first.
 */
export class ManifestMemo {
  readonly #parsed = new BoundedCache<string, Manifest>(PARSED_MANIFESTS_MAX);

  /** `parseManifest`, answered from the memo when these exact bytes were accepted before. */
  parse(bytes: Uint8Array, rel: string): Manifest {
    const digest = manifestDigest(bytes);
    const known = this.#parsed.get(digest);
    if (known !== undefined) {
      this.#parsed.setNewest(digest, known);
      return known;
    }
    const m = parseManifestUncached(bytes, rel);
    this.#parsed.set(digest, m);
    return m;
  }

  /**
   * Records a manifest the writer just encoded (`digest` is over `encodeManifest(m)`).
   *
   * Publication builds the manifest, encodes, writes and re-reads it; the
   * cleanup and the next publication then find it parsed. Only for bytes that
   * are `encodeManifest(m)` exactly: that is the canonical form `parseManifest`
   * would accept and return as `m`.
   */
  remember(digest: string, m: Manifest): void {
    if (this.#parsed.has(digest)) return;
    // The shape `parseManifest` returns: canonical order, exactly the manifest's fields.
    this.#parsed.set(digest, {
      generationUuid: m.generationUuid,
      parentGenerationUuid: m.parentGenerationUuid,
      transactionUuid: m.transactionUuid,
      capabilities: [...m.capabilities]
        .sort((a, b) => compareCodePoints(a.capabilityId, b.capabilityId))
        .map((c) => ({ capabilityId: c.capabilityId, capabilityVersion: c.capabilityVersion })),
      participants: [...m.participants].sort(compareParticipants).map((p) => ({
        capabilityId: p.capabilityId,
        capabilityVersion: p.capabilityVersion,
        recordFamilyId: p.recordFamilyId,
        recordVersion: p.recordVersion,
        relativePath: p.relativePath,
        encoding: p.encoding,
        byteLength: p.byteLength,
        rowCount: p.rowCount,
        schemaFingerprint: p.schemaFingerprint,
        contentSha256: p.contentSha256,
      })),
    });
  }

  /** True when the manifest of this digest is remembered. */
  has(digest: string): boolean {
    return this.#parsed.has(digest);
  }

  /** Manifests held now. */
  get size(): number {
    return this.#parsed.size;
  }

  /** Forgets every manifest (the project closed). */
  clear(): void {
    this.#parsed.clear();
  }
}

function parseManifestUncached(bytes: Uint8Array, rel: string): Manifest {
  const bad = (why: string): GfError => new GfError('GF_PROJECT_CORRUPT', `manifest ${why}`, { name: rel });
  let raw: unknown;
  try {
    raw = JSON.parse(dec.decode(bytes));
  } catch {
    throw bad('is not JSON');
  }
  const r = ManifestSchema.safeParse(raw);
  if (!r.success) throw bad('does not match the manifest schema');
  const d = r.data;
  const m: Manifest = {
    generationUuid: d.generation_uuid,
    parentGenerationUuid: d.parent_generation_uuid,
    transactionUuid: d.transaction_uuid,
    capabilities: d.capabilities.map((c) => ({ capabilityId: c.capability_id, capabilityVersion: c.capability_version })),
    participants: d.participants.map((p) => ({
      capabilityId: p.capability_id,
      capabilityVersion: p.capability_version,
      recordFamilyId: p.record_family_id,
      recordVersion: p.record_version,
      relativePath: p.relative_path,
      encoding: p.encoding,
      byteLength: p.byte_length,
      rowCount: p.row_count,
      schemaFingerprint: p.schema_fingerprint,
      contentSha256: p.content_sha256,
    })),
  };
  const again = encodeManifest(m);
  if (again.length !== bytes.length || Buffer.compare(again, bytes) !== 0) throw bad('is not in canonical form');
  const keys = new Set(m.participants.map(familyKeyOf));
  if (keys.size !== m.participants.length) throw bad('lists a record family twice');
  let caps: ManifestCapability[];
  try {
    caps = capabilitiesOf(m.participants);
  } catch {
    throw bad('has inconsistent capability versions');
  }
  if (canonicalCaps(caps) !== canonicalCaps(m.capabilities)) throw bad('capabilities do not match its participants');
  return m;
}

function canonicalCaps(c: readonly ManifestCapability[]): string {
  return c.map((x) => `${x.capabilityId}@${x.capabilityVersion}`).join(',');
}

/** Digest of exact manifest bytes. */
export function manifestDigest(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/** Journal states; any of them may move to ABORTED. */
export const JOURNAL_STATES = ['PREPARING', 'STAGED', 'VALIDATED', 'DURABLE', 'PUBLISHED', 'ABORTED'] as const;
/** One journal state. */
export type JournalState = (typeof JOURNAL_STATES)[number];

/** A JSON value that canonical JSON can represent (for journal extensions). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [k: string]: JsonValue };

/**
 * What the lineage log's line of a publication needs beyond its manifest
 * (GENERATIONS.md "Lineage log"), recorded in the journal before the CURRENT
 * rename so recovery rebuilds the line without a clock.
 */
export interface LineageIntent {
  /** UTC microseconds, sampled once when the publication started. */
  readonly publishedAt: number;
  readonly actor: string | null;
  readonly kind: LineageKind;
  readonly restoredCheckpointUuid: string | null;
  readonly reason: string | null;
  /** Known from the DURABLE state on (null before). */
  readonly participantsChanged: number | null;
}

/** The advisory transaction journal `transactions/<txn-uuid>.json`. */
export interface Journal {
  readonly transactionUuid: string;
  readonly state: JournalState;
  readonly parentGenerationUuid: string | null;
  readonly generationUuid: string;
  /**
   * Caller metadata made durable before any participant byte is staged.
   *
   * The revert engine records its canonical request here so recovery and
   * replay never resample a clock or rescan participants.
   */
  readonly extension: JsonValue;
  /** The lineage record's fields (absent/null for a journal written before the log existed). */
  readonly lineage?: LineageIntent | null;
}

function lineageJson(l: LineageIntent): string {
  return orderedJson({
    published_at: l.publishedAt,
    actor: l.actor,
    kind: l.kind,
    restored_checkpoint_uuid: l.restoredCheckpointUuid,
    reason: l.reason,
    participants_changed: l.participantsChanged,
  });
}

/** Journal bytes: ordered canonical JSON + LF. */
export function encodeJournal(j: Journal): Uint8Array {
  const head = orderedJson({
    format: 'graphforge-transaction',
    format_version: 1,
    transaction_uuid: j.transactionUuid,
    state: j.state,
    parent_generation_uuid: j.parentGenerationUuid,
    generation_uuid: j.generationUuid,
  });
  // The extension is caller data: sorted canonical JSON, so JSON.parse's key order never matters.
  const lineage = j.lineage === null || j.lineage === undefined ? '' : `,"lineage":${lineageJson(j.lineage)}`;
  return enc.encode(`${head.slice(0, -1)},"extension":${canonicalJson(j.extension)}${lineage}}\n`);
}

const JournalSchema = z.strictObject({
  format: z.literal('graphforge-transaction'),
  format_version: z.literal(1),
  transaction_uuid: UUID,
  state: z.enum(JOURNAL_STATES),
  parent_generation_uuid: UUID.nullable(),
  generation_uuid: UUID,
  extension: z.json(),
  lineage: z
    .strictObject({
      published_at: z.number().int(),
      actor: UUID.nullable(),
      kind: z.enum(LINEAGE_KINDS),
      restored_checkpoint_uuid: UUID.nullable(),
      reason: z.string().nullable(),
      participants_changed: COUNT.nullable(),
    })
    .optional(),
});

/** Parses a journal; returns undefined for anything malformed (journals are advisory). */
export function parseJournal(bytes: Uint8Array): Journal | undefined {
  try {
    const r = JournalSchema.safeParse(JSON.parse(dec.decode(bytes)));
    if (!r.success) return undefined;
    const j: Journal = {
      transactionUuid: r.data.transaction_uuid,
      state: r.data.state,
      parentGenerationUuid: r.data.parent_generation_uuid,
      generationUuid: r.data.generation_uuid,
      extension: r.data.extension as JsonValue,
      lineage:
        r.data.lineage === undefined
          ? null
          : {
              publishedAt: r.data.lineage.published_at,
              actor: r.data.lineage.actor,
              kind: r.data.lineage.kind,
              restoredCheckpointUuid: r.data.lineage.restored_checkpoint_uuid,
              reason: r.data.lineage.reason,
              participantsChanged: r.data.lineage.participants_changed,
            },
    };
    const again = encodeJournal(j);
    return Buffer.compare(again, bytes) === 0 ? j : undefined;
  } catch {
    return undefined;
  }
}
