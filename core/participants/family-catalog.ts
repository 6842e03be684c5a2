// The participant catalog the project layer validates and decodes through, built over the record-family registry.
import type { Table } from 'apache-arrow';
import type { ParticipantCatalog } from '../project/catalog';
import { decodeParticipant } from './codec';
import { findFamily } from './family-registry';
import { validateParticipant, validateSnapshot } from './validate';
import { mandatoryWorkspaceParticipants } from './workspace-bytes';

let mandatoryMemo: ReturnType<typeof mandatoryWorkspaceParticipants> | undefined;
const MANDATORY_LAZY = (): ReturnType<typeof mandatoryWorkspaceParticipants> => (mandatoryMemo ??= mandatoryWorkspaceParticipants());

/**
 * The real record-family registry (`core/participants`) as the store's catalog port.
 *
 * Publication runs each changed participant's domain rules once
 * (`validateParticipant`), then only the cross-domain rules that read a
 * changed family (`validateSnapshot` with `changed`, domain rules off).
 */
export const registryCatalog: ParticipantCatalog<Table> = {
  family: (capabilityId, recordFamilyId) => findFamily(capabilityId, recordFamilyId),
  decode: (family, bytes) => {
    const f = findFamily(family.capabilityId, family.recordFamilyId);
    if (f === undefined) throw new Error('invariant violated: decode of an unregistered family');
    const table = decodeParticipant(f, bytes, { schemaFingerprint: family.schemaFingerprint });
    return { rowCount: table.numRows, table };
  },
  validateParticipant: (family, table) => {
    const f = findFamily(family.capabilityId, family.recordFamilyId);
    if (f === undefined) throw new Error('invariant violated: validation of an unregistered family');
    validateParticipant(f, table);
  },
  validateFile: (family, rows) => {
    const f = findFamily(family.capabilityId, family.recordFamilyId);
    if (f === undefined) throw new Error('invariant violated: validation of an unregistered family');
    validateParticipant(f, rows);
  },
  // ADR-0014: the workspace@1 ontology and configuration documents are in every generation (explicit none by default).
  mandatory: MANDATORY_LAZY,
  validateSnapshot: (snapshot, changed) => validateSnapshot(snapshot, { changed, domain: false }),
};
