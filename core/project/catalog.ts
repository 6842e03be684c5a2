// What the store needs from the record-family registry: family descriptors and the
// mandatory participants of a snapshot.
import type { ArrowFileRows } from '../canonical/arrow-file-rows';
import type { Encoding } from './formats';

/**
 * What the store needs from the record-family registry ("the subset we need").
 *
 * The project store never interprets participant bytes itself: it asks the
 * catalog for a family's declared identity, for the decoded table and row
 * count, and for domain and cross-domain validation. `core/participants`
 * provides the real catalog (`registryCatalog`); keeping this port narrow
 * lets the protocol be tested and reused without depending on every family.
 */
export interface FamilyDescriptor {
  readonly capabilityId: string;
  readonly capabilityVersion: number;
  readonly recordFamilyId: string;
  readonly recordVersion: number;
  /** `<capability-id>/<record-family-id>.<encoding>`: a logical name, never a storage path. */
  readonly relativePath: string;
  readonly encoding: Encoding;
  /** Canonical schema fingerprint (64 hex) the participant's schema must have. */
  readonly schemaFingerprint: string;
  /**
   * False for a family whose participant belongs only to the generation that
   * writes it: a publication that does not write it drops the parent's
   * instead of carrying it forward (absent: carried forward).
   */
  readonly carriedForward?: boolean;
}

/** A participant every generation must contain, with the bytes published when a generation would lack it. */
export interface MandatoryParticipant {
  readonly capabilityId: string;
  readonly recordFamilyId: string;
  /** The explicit default (e.g. the "no ontology" document), staged when the candidate generation has none. */
  readonly bytes: Uint8Array;
}

/** A read-only view of a whole candidate generation, family key → decoded table. */
export interface SnapshotTables<T> {
  /** Every family key present in the candidate generation. */
  families(): Iterable<string>;
  /** The decoded table of one family, or undefined when absent. */
  get(familyKey: string): T | undefined;
  /**
   * The family's stored Arrow participant read by row ranges from its verified object, when it can be (else undefined: use `get`).
   *
   * Why: validation then reads a participant of millions of records window by window, never whole.
   */
  file?(familyKey: string): ArrowFileRows | undefined;
  /** The content SHA-256 of one family's participant (lets a catalog reuse results keyed by content). */
  contentSha256?(familyKey: string): string | undefined;
  /** The UUID of the generation being published (absent when validating an existing generation). */
  readonly generationUuid?: string;
}

/** The registry port used by publication and by leases. */
export interface ParticipantCatalog<T = unknown> {
  /** The registered family, or undefined (publishing an unregistered family is `GF_VALIDATION`). */
  family(capabilityId: string, recordFamilyId: string): FamilyDescriptor | undefined;
  /**
   * Decodes participant bytes into a table; structural mismatch is `GF_VALIDATION` or `GF_SCHEMA_MISMATCH`.
   *
   * Must not retain `bytes` beyond the returned table's needs.
   */
  decode(family: FamilyDescriptor, bytes: Uint8Array): { readonly rowCount: number; readonly table: T };
  /** Domain validation of one participant (`GF_VALIDATION` with safe details). */
  validateParticipant(family: FamilyDescriptor, table: T): void;
  /**
   * Domain validation of one participant read by row ranges from its file (optional; same rules and errors as `validateParticipant`).
   *
   * Why: a put-file of millions of records is validated without decoding it whole.
   */
  validateFile?(family: FamilyDescriptor, rows: ArrowFileRows): void;
  /**
   * Participants every generation contains (absent: none).
   *
   * Publication stages the default bytes of each one the candidate
   * generation lacks after the request's changes: the first publication,
   * a parent published before the family was mandatory, or a removal.
   */
  mandatory?(): readonly MandatoryParticipant[];
  /** Cross-domain validation; only rules touching a family in `changed` need to run. */
  validateSnapshot(snapshot: SnapshotTables<T>, changed: ReadonlySet<string>): void;
}
