// The project store's public surface: open a project, lease generations, write and
// publish, verified object reads.
export { createProject, openProject, Project } from './project';
export type { ProjectOptions, Writer, WriterOptions } from './project';
export { Lease } from './lease';
export { ProjectCaches } from './project-caches';
export type { LayerCache } from './project-caches';
export {
  VERIFY_CHUNK_BYTES,
  VerifiedObjectMemo,
  openObjectVerified,
  openObjectVerifiedAsync,
  racyWholeReadsForTesting,
  readObjectVerified,
  readObjectVerifiedAsync,
  verifiedBytes,
} from './verified-objects';
export type { OpenVerifiedOptions, VerifiedObject } from './verified-objects';
export type { FamilyDescriptor, ParticipantCatalog, SnapshotTables } from './catalog';
export type { FamilyRef, ParticipantChange, PublishLineage, PublishRequest, PublishResult } from './publication';
export type { RecoveryReport } from './recovery';
export { CLEANUP_SCOPES, DEFAULT_RETAIN_ANCESTORS, MAX_RETAIN_ANCESTORS } from './retention';
export type { CleanupReport, CleanupOptions, CleanupScope, GenerationInfo, RetentionPins } from './retention';
export { FAILPOINT_NAMES, FAILPOINT_ENV, committedAt, armFailpointForTesting } from './failpoints';
export type { FailpointName } from './failpoints';
export {
  FORMAT_BYTES,
  ENCODINGS,
  JOURNAL_STATES,
  encodeCurrent,
  parseCurrent,
  encodeManifest,
  manifestEntryJson,
  parseManifest,
  ManifestMemo,
  manifestDigest,
  familyKeyOf,
} from './formats';
export type { CurrentPointer, Manifest, ManifestParticipant, ManifestCapability, Encoding, Journal, JournalState, JsonValue } from './formats';
export type { WriteMeter } from './durable-fs';
export { LAYOUT, deriveGenerationUuid, objectPlace } from './layout';
export { LINEAGE_GENESIS, encodeLineageLine, parseLineageLine, readLineage, lineageTail } from './lineage';
export type { LineageLog, LineageRecord, LineageRepair, LineageTail } from './lineage';
export { readRetentionPolicy, encodeRetentionPolicy } from './retention-policy';
export type { RetentionPolicyFile } from './retention-policy';
