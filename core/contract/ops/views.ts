// The checkpoint view operations: open a read-only, lease-pinned view of a
// checkpoint, list its participants and page through one participant's
// records. Each declared once with its request schema and result.
// Browser-safe (zod and core/contract).
import { z } from 'zod';
import { afterSchema, checkpointNameSchema, handleSchema, identifierSchema, identitySchema, limitSchema } from './atoms';
import { arrowOp, jsonOp, returns, type DomainOperations } from './declare';

/** What `view.open` returns: the view's handle and what it pins. */
export interface ViewOpened {
  readonly view: string;
  readonly checkpoint_uuid: string;
  readonly generation_uuid: string;
  readonly manifest_sha256: string;
}

/** A participant entry of a view (manifest fields). */
export interface ParticipantEntry {
  readonly capability_id: string;
  readonly capability_version: number;
  readonly record_family_id: string;
  readonly record_version: number;
  readonly relative_path: string;
  readonly encoding: string;
  readonly byte_length: number;
  readonly row_count: number;
  readonly schema_fingerprint: string;
  readonly content_sha256: string;
  /**
   * The family's scope from the closed participant registry (`graph`, …,
   * `workspace`); null when the registry does not know the family.
   */
  readonly scope: string | null;
  /** The family's identity fields in registry order (how `view.record` names one record); empty when unregistered. */
  readonly identity_fields: readonly string[];
}

/** The checkpoint view operations. */
export const VIEW_OPERATIONS = {
  'view.open': jsonOp(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), returns<ViewOpened>(), false, 'Open a read-only, lease-pinned view of a checkpoint.'),
  'view.close': jsonOp(z.object({ view: handleSchema }).strict(), returns<{ readonly closed: boolean }>(), false, 'Release a view and its lease.'),
  'view.participants': jsonOp(z.object({ view: handleSchema }).strict(), returns<{ readonly participants: readonly ParticipantEntry[] }>(), false, 'The participants of a view (manifest entries).'),
  'view.records': arrowOp(
    z.object({ view: handleSchema, capability_id: identifierSchema, record_family_id: identifierSchema, limit: limitSchema, after: afterSchema }).strict(),
    'records', false, 'A page of one participant\'s records.'),
  'view.record': arrowOp(
    z.object({ view: handleSchema, capability_id: identifierSchema, record_family_id: identifierSchema, identity: identitySchema }).strict(),
    'records', false, 'One record by its identity values (zero or one row).'),
} as const satisfies DomainOperations;
