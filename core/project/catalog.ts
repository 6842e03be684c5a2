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
}

/** A read-only view of a whole candidate generation, family key → decoded table. */
export interface SnapshotTables<T> {
  /** Every family key present in the candidate generation. */
  families(): Iterable<string>;
  /** The decoded table of one family, or undefined when absent. */
  get(familyKey: string): T | undefined;
  /** The content SHA-256 of one family's participant (lets a catalog reuse results keyed by content). */
  contentSha256?(familyKey: string): string | undefined;
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
  /** Cross-domain validation; only rules touching a family in `changed` need to run. */
  validateSnapshot(snapshot: SnapshotTables<T>, changed: ReadonlySet<string>): void;
}
