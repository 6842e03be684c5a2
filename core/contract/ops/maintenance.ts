// The maintenance operations the `gf` CLI offers beyond the screens: publish a
// generation, build the demo workspace, compute golden vectors and check a
// workspace (doctor). Each declared once with its request schema and result
// type (core/contract/maintenance.ts holds the result shapes and bounds, light
// enough for `gf --help`). Browser-safe (zod and core/contract).
import { z } from 'zod';
import { DEMO_MAX_RECORDS, DEMO_MAX_SEED, DEMO_MIN_RECORDS } from '../demo';
import { MAX_VECTOR_FILE_CHARS, PARTICIPANT_LIMITS, type DemoCreated, type DoctorReport, type PublishReceipt, type VectorResultEntry } from '../maintenance';
import { directorySchema, handleSchema, timeoutSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';

/** A capability or record family id as `project.publish` names it. */
const familyPartSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/** Base64 text (standard alphabet, padded). */
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;
/** One participant's bytes as base64: at most `PARTICIPANT_LIMITS.bytes` of bytes. */
const MAX_PARTICIPANT_BASE64_CHARS = Math.ceil(PARTICIPANT_LIMITS.bytes / 3) * 4;

/** The maintenance operations. */
export const MAINTENANCE_OPERATIONS = {
  /**
   * Publishes one generation: CURRENT plus added, replaced or removed participants.
   *
   * Participant bytes travel as base64 (Arrow IPC file or canonical JSON
   * document); every family must be registered (`GF_VALIDATION` otherwise).
   */
  'project.publish': jsonOp(
    z.object({
      project: handleSchema,
      changes: z.array(z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('put'), capability_id: familyPartSchema, record_family_id: familyPartSchema, bytes_base64: z.string().max(MAX_PARTICIPANT_BASE64_CHARS).regex(BASE64_PATTERN) }).strict(),
        z.object({ kind: z.literal('remove'), capability_id: familyPartSchema, record_family_id: familyPartSchema }).strict(),
      ])).min(1).max(256),
      timeout_ms: timeoutSchema,
    }).strict(),
    returns<PublishReceipt>(), true, 'Publish a new generation: CURRENT plus added, replaced or removed participants.'),
  'demo.create': jsonOp(
    z.object({
      path: directorySchema,
      records: z.number().int().min(DEMO_MIN_RECORDS).max(DEMO_MAX_RECORDS).optional(),
      seed: z.number().int().min(0).max(DEMO_MAX_SEED).optional(),
    }).strict(),
    returns<DemoCreated>(), true, 'Create the deterministic demo research workspace in an absent or empty directory.'),
  /** Computes every golden vector of a golden-vector file's text (CANONICAL.md); it judges nothing. */
  'canonical.vectors': jsonOp(z.object({ text: z.string().max(MAX_VECTOR_FILE_CHARS) }).strict(), returns<{ readonly results: readonly VectorResultEntry[] }>(), false, 'The payload, SHA-256 and UUIDv8 of every vector of a golden-vector file.'),
  /**
   * Checks a workspace directory: every anomaly with its path and a safe remedy.
   *
   * Takes a path, not a project handle: it must work on a workspace that does
   * not open. `repair: true` applies only the recovery protocol's remedies first.
   */
  'project.doctor': jsonOp(z.object({ path: directorySchema, repair: z.boolean().optional() }).strict(), returns<DoctorReport>(), true, 'Check a workspace: every anomaly with its path and a safe remedy (repair: the recovery remedies only).'),
} as const satisfies DomainOperations;
