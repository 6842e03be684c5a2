// Registry recovery as a decision table: what the file shell observed at each path
// and the one safe action for each combination.
import { sha256Hex } from '../canonical';
import { decodeIntent, decodeRegistry, encodeChecksum, registryCorrupt } from './registry-format';
import type { RegistryDoc, RegistryFile, RegistryIntent } from './registry-format';

/**
 * What the file shell observed at one path, without interpretation.
 *
 * `unsafe` covers symlinks, hard-linked (nlink ≠ 1) or non-regular files and
 * files over their byte bound: none of them is ever read as registry data.
 */
export type Observed =
  | { readonly kind: 'absent' }
  | { readonly kind: 'present'; readonly bytes: Uint8Array }
  | { readonly kind: 'unsafe'; readonly reason: string };

/** Everything recovery looks at. Temporaries are observed only when the intent names them. */
export interface RegistryObservation {
  readonly registry: Observed;
  readonly checksum: Observed;
  readonly intent: Observed;
  /** Observer of the intent's exact temporary files (called only for a decodable intent). */
  readonly temps?: (intent: RegistryIntent) => { readonly registryTemp: Observed; readonly checksumTemp: Observed };
  /**
   * Decodes and validates registry bytes whose SHA-256 is `sha256` (default
   * `decodeRegistry`); a store passes its owner's memo of documents already
   * validated (`RegistryMemos.decode`), a pure function of the bytes either way.
   */
  readonly decode?: RegistryDecoder;
}

/** Decodes and fully validates registry bytes of digest `sha256` (`GF_CHECKPOINT_REGISTRY_CORRUPT` on any deviation). */
export type RegistryDecoder = (bytes: Uint8Array, sha256: string) => RegistryDoc;

/** The rows of ADR-0014's recovery state table that do not fail closed. */
export const RECOVERY_ROWS = [
  'no_intent_accept_installed',
  'intent_retain_previous',
  'intent_retain_absent',
  'intent_install_next_checksum',
  'intent_accept_next',
] as const;
export type RecoveryRow = (typeof RECOVERY_ROWS)[number];

/** Side effects recovery must perform (under writer.lock → checkpoints.lock) to settle the state. */
export const RECOVERY_ACTIONS = ['install_next_checksum', 'remove_intent', 'remove_temps'] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

/**
 * The logical registry state and the actions that make the disk match it.
 *
 * `doc`/`bytes`/`sha256` are null when no checkpoint was ever created.
 * Readers use the logical state without acting; writers act first.
 */
export interface RecoveryDecision {
  readonly row: RecoveryRow;
  readonly doc: RegistryDoc | null;
  readonly bytes: Uint8Array | null;
  readonly sha256: string | null;
  readonly intent: RegistryIntent | null;
  readonly actions: readonly RecoveryAction[];
}

function bytesOf(o: Observed, file: RegistryFile): Uint8Array | null {
  if (o.kind === 'unsafe') throw registryCorrupt(file, o.reason);
  return o.kind === 'present' ? o.bytes : null;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface ValidNext {
  readonly doc: RegistryDoc;
  readonly bytes: Uint8Array;
}

/** The staged or installed next registry, validated against the intent, or null. */
function validNextRegistry(bytes: Uint8Array | null, intent: RegistryIntent, decode: RegistryDecoder): ValidNext | null {
  if (bytes === null || sha256Hex(bytes) !== intent.next_sha256) return null;
  let doc: RegistryDoc;
  try {
    doc = decode(bytes, intent.next_sha256);
  } catch {
    return null;
  }
  return doc.revision === intent.next_revision ? { doc, bytes } : null;
}

function isChecksumOf(bytes: Uint8Array | null, sha: string | null): boolean {
  return bytes !== null && sha !== null && sameBytes(bytes, new TextEncoder().encode(`${sha}\n`));
}

/**
 * Decides the registry state from an observation: ADR-0014's complete recovery table. Pure.
 *
 * | intent  | installed pair                                  | staged next        | result |
 * |---------|-------------------------------------------------|--------------------|--------|
 * | absent  | valid (previous or next), or both absent         | n/a                | accept installed |
 * | absent  | partial or mismatched                            | n/a                | corrupt |
 * | present | valid previous                                   | valid staged next  | retain previous; remove intent/temps |
 * | present | absent, no previous declared                     | valid staged next  | retain absent; remove intent/temps |
 * | present | next registry + previous/missing checksum        | valid next checksum| install next checksum; accept next |
 * | present | valid next                                       | absent or valid    | accept next; remove intent/temps |
 * | present | anything else                                    | any                | corrupt |
 *
 * Every refusal is `GF_CHECKPOINT_REGISTRY_CORRUPT`; nothing is guessed or defaulted.
 */
export function decideRecovery(obs: RegistryObservation): RecoveryDecision {
  const decode = obs.decode ?? decodeRegistry;
  const registry = bytesOf(obs.registry, 'registry.json');
  const checksum = bytesOf(obs.checksum, 'registry.json.sha256');
  const intentBytes = bytesOf(obs.intent, 'registry.txn.json');

  if (intentBytes === null) {
    if (registry === null && checksum === null) {
      return { row: 'no_intent_accept_installed', doc: null, bytes: null, sha256: null, intent: null, actions: [] };
    }
    if (registry === null || checksum === null) throw registryCorrupt(registry === null ? 'registry.json' : 'registry.json.sha256', 'partial_pair');
    // Every reader comes this way: the installed bytes are hashed once, for the checksum, the decode cache and the state.
    const sha = sha256Hex(registry);
    if (!isChecksumOf(checksum, sha)) throw registryCorrupt('registry.json.sha256', 'digest_mismatch');
    const doc = decode(registry, sha);
    return { row: 'no_intent_accept_installed', doc, bytes: registry, sha256: sha, intent: null, actions: [] };
  }

  const intent = decodeIntent(intentBytes);
  const staged = obs.temps?.(intent);
  if (staged === undefined) throw registryCorrupt('registry.txn.json', 'temps_unobserved');
  const regTemp = bytesOf(staged.registryTemp, 'registry_temp');
  const sumTemp = bytesOf(staged.checksumTemp, 'checksum_temp');
  const stagedNext = validNextRegistry(regTemp, intent, decode);
  const stagedChecksumValid = isChecksumOf(sumTemp, intent.next_sha256);
  const stagedPairValid = stagedNext !== null && stagedChecksumValid;
  const cleanup: readonly RecoveryAction[] = ['remove_intent', 'remove_temps'];

  // Row: installed pair absent, no previous declared, valid staged next → retain absent.
  if (registry === null && checksum === null) {
    if (intent.previous_revision === null && stagedPairValid) {
      return { row: 'intent_retain_absent', doc: null, bytes: null, sha256: null, intent, actions: cleanup };
    }
    throw registryCorrupt('registry.txn.json', 'unrecoverable_state');
  }
  if (registry === null) throw registryCorrupt('registry.json', 'unrecoverable_state');

  const installedSha = sha256Hex(registry);
  // Row: valid previous installed, valid staged next → retain previous.
  if (intent.previous_sha256 !== null && installedSha === intent.previous_sha256) {
    if (checksum === null || !isChecksumOf(checksum, installedSha) || !stagedPairValid) throw registryCorrupt('registry.txn.json', 'unrecoverable_state');
    const doc = decode(registry, installedSha);
    if (doc.revision !== intent.previous_revision) throw registryCorrupt('registry.json', 'revision_mismatch');
    return { row: 'intent_retain_previous', doc, bytes: registry, sha256: installedSha, intent, actions: cleanup };
  }
  const installedNext = validNextRegistry(registry, intent, decode);
  if (installedNext === null) throw registryCorrupt('registry.json', 'unrecoverable_state');
  // A staged registry temp, if still present, must be exactly the next bytes.
  if (regTemp !== null && stagedNext === null) throw registryCorrupt('registry_temp', 'unrecoverable_state');
  const nextDecision = (row: RecoveryRow, actions: readonly RecoveryAction[]): RecoveryDecision => ({
    row,
    doc: installedNext.doc,
    bytes: installedNext.bytes,
    sha256: installedSha,
    intent,
    actions,
  });
  // Row: valid next installed, staged checksum absent or valid → accept next.
  if (checksum !== null && isChecksumOf(checksum, installedSha)) {
    if (sumTemp !== null && !stagedChecksumValid) throw registryCorrupt('checksum_temp', 'unrecoverable_state');
    return nextDecision('intent_accept_next', cleanup);
  }
  // Row: next registry plus previous or missing checksum, valid staged next checksum → install it.
  const checksumIsPrevious = checksum === null || isChecksumOf(checksum, intent.previous_sha256);
  if (checksumIsPrevious && stagedChecksumValid) {
    return nextDecision('intent_install_next_checksum', ['install_next_checksum', ...cleanup]);
  }
  throw registryCorrupt('registry.json.sha256', 'unrecoverable_state');
}

/** The checksum bytes that recovery installs for a decision (never derived from a guess). */
export function expectedChecksum(decision: RecoveryDecision): Uint8Array | null {
  return decision.bytes === null ? null : encodeChecksum(decision.bytes);
}
