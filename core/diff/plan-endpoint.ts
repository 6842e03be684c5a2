// What the engine reads of a diff endpoint: its identity, its participants and
// their bytes (whole, ranged or cooperative).
import { parseUuid, sha256, uuidV8 } from '../canonical/index';
import { GfError } from '../errors';
import type { ManifestParticipant, ProjectCaches, VerifiedObject } from '../project/index';
import { CURRENT_ENDPOINT_DOMAIN } from './arrow-schemas';

/** The manifest facts the diff needs about one participant (a `ManifestParticipant` satisfies it). */
export type EndpointParticipant = Pick<
  ManifestParticipant,
  | 'capabilityId'
  | 'capabilityVersion'
  | 'recordFamilyId'
  | 'recordVersion'
  | 'encoding'
  | 'rowCount'
  | 'schemaFingerprint'
  | 'contentSha256'
  | 'byteLength'
>;

/**
 * One participant object of an endpoint, opened for ranged reads of its
 * verified bytes: a project's `VerifiedObject`, or bytes in memory
 * (`verifiedBytes`).
 */
export type ParticipantSource = VerifiedObject;

/**
 * One pinned diff endpoint: an immutable snapshot the diff reads.
 *
 * The diff engine is a pure core over two of these; the shell builds them
 * from lease-pinned checkpoint views (or CURRENT). `checkpointUuid` is the
 * checkpoint's UUID, or the synthetic CURRENT endpoint UUID. Bytes are read
 * lazily, only for participants whose content differs between endpoints.
 */
export interface DiffEndpoint {
  /** Endpoint identity that result rows and page tokens carry (canonical UUID text). */
  readonly checkpointUuid: string;
  /** The pinned generation (canonical UUID text). */
  readonly generationUuid: string;
  /** SHA-256 of the generation's exact manifest bytes (64 lowercase hex). */
  readonly manifestSha256: string;
  /** The generation's participants, as its manifest lists them. */
  readonly participants: readonly EndpointParticipant[];
  /**
   * The caches of the project the endpoint is pinned in (optional): what the
   * diff learns about its objects (layouts, identity order, decoded sides,
   * scratch buffers) is kept there, so it lasts as long as the project is
   * open and is never shared with another. An endpoint without (bytes in
   * memory) is read without memos.
   */
  readonly caches?: ProjectCaches;
  /** The exact stored bytes of one of `participants`, verified against `contentSha256`. */
  readParticipantBytes(entry: EndpointParticipant): Uint8Array;
  /**
   * The same bytes, read and verified cooperatively (optional).
   *
   * Awaits `pause` between chunks, so a long read yields to the event loop
   * and stops when `pause` throws (`GF_CANCELLED`). Endpoints without it
   * are read with `readParticipantBytes`.
   */
  readParticipantBytesAsync?(entry: EndpointParticipant, pause: () => Promise<void>): Promise<Uint8Array>;
  /**
   * The same participant opened for ranged reads once verified (optional):
   * a diff then reads only the byte ranges of the rows it looks at.
   * Endpoints without it are read whole (`readParticipantBytes`).
   */
  openParticipant?(entry: EndpointParticipant): ParticipantSource;
  /** `openParticipant`, verifying cooperatively: awaits `pause` between hashed chunks (optional). */
  openParticipantAsync?(entry: EndpointParticipant, pause: () => Promise<void>): Promise<ParticipantSource>;
}

/** A pinned endpoint plus the release of its lease (idempotent). */
export interface LeasedEndpoint extends DiffEndpoint {
  release(): void;
}

const CURRENT_DOMAIN_BYTES = new TextEncoder().encode(CURRENT_ENDPOINT_DOMAIN);

/**
 * The synthetic endpoint UUID of CURRENT at one generation.
 *
 * uuid_v8(SHA-256("graphforge-current-checkpoint-endpoint/1" ||
 * generation_uuid_bytes || generation_manifest_sha256)) per ADR-0014. It
 * identifies only this immutable endpoint: it is not a checkpoint reference,
 * and no checkpoint lookup ever accepts it.
 */
export function currentEndpointUuid(generationUuid: string, manifestSha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(manifestSha256)) {
    throw new GfError('GF_VALIDATION', 'manifest digest is not 64 lowercase hex', {});
  }
  const gen = parseUuid(generationUuid);
  const pre = new Uint8Array(CURRENT_DOMAIN_BYTES.length + 16 + 32);
  pre.set(CURRENT_DOMAIN_BYTES, 0);
  pre.set(gen, CURRENT_DOMAIN_BYTES.length);
  pre.set(Buffer.from(manifestSha256, 'hex'), CURRENT_DOMAIN_BYTES.length + 16);
  return uuidV8(sha256(pre));
}
