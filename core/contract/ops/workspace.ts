// The workspace document operations (ADR-0014 workspace_ontology@1 and
// workspace_configuration@1): read the ontology or configuration of CURRENT
// or of an open view, adopt or clear an ontology. Each declared once with its
// request schema, its one cross-field rule and its Arrow result schema.
// Browser-safe (zod and core/contract).
import { z } from 'zod';
import { ADOPT_MODES, ONTOLOGY_INPUT_LIMITS, ONTOLOGY_SOURCE_FORMATS } from '../workspace';
import { actorSchema, handleSchema, timeoutSchema, uuidSchema } from './atoms';
import { arrowOp, type DomainOperations } from './declare';

/** Where a workspace document is read: CURRENT of a project, or the generation an open view pins (exactly one). */
const documentTargetSchema = z
  .object({ project: handleSchema.optional(), view: handleSchema.optional() })
  .strict()
  .refine((r) => (r.project === undefined) !== (r.view === undefined), 'exactly one of project or view');

/** The workspace document operations. */
export const WORKSPACE_OPERATIONS = {
  /**
   * `workspace_ontology()`: the ontology document — mode, counts, contract version, canonical digest (one row).
   *
   * Of CURRENT (`project`), or of the generation an open checkpoint view pins (`view`): exactly one of the two.
   */
  'workspace.ontology': arrowOp(documentTargetSchema, ['workspace_ontology_info@1'], false, 'The adopted ontology of CURRENT or of an open checkpoint view (workspace_ontology_info@1, one row).'),
  /** `workspace_configuration()`: the configuration document of CURRENT (`project`) or of an open view (`view`), one row. */
  'workspace.configuration': arrowOp(documentTargetSchema, ['workspace_configuration_info@1'], false, 'The configuration of CURRENT or of an open checkpoint view (workspace_configuration_info@1, one row).'),
  /**
   * `adopt_ontology(input, mode, idempotency_key, actor)`: publishes one generation with the new documents.
   *
   * The input text is bounded by the engine (`ONTOLOGY_INPUT_LIMITS`, `GF_RESOURCE_LIMIT`) before parsing.
   */
  'workspace.adopt_ontology': arrowOp(
    z.object({
      project: handleSchema,
      source: z.string().max(4 * ONTOLOGY_INPUT_LIMITS.bytes),
      source_format: z.enum(ONTOLOGY_SOURCE_FORMATS),
      mode: z.enum(ADOPT_MODES),
      idempotency_key: uuidSchema,
      actor_uuid: actorSchema,
      timeout_ms: timeoutSchema,
    }).strict(),
    ['ontology_receipt@1'], true, 'Adopt an ontology (YAML/JSON) in advisory or strict mode: one new generation (ontology_receipt@1).'),
  /** `clear_ontology(idempotency_key, actor)`: publishes the explicit "no ontology" documents. */
  'workspace.clear_ontology': arrowOp(
    z.object({ project: handleSchema, idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    ['ontology_receipt@1'], true, 'Clear the adopted ontology (mode none): one new generation (ontology_receipt@1).'),
} as const satisfies DomainOperations;
