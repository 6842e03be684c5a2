// The workspace documents of ADR-0014 (workspace_ontology@1 and
// workspace_configuration@1): field orders, modes, input bounds and the
// registry of engine-recognized configuration settings, declared once.
// Browser-safe: no Node, no engine import.

/** `contract_version` of both workspace documents. */
export const WORKSPACE_DOCUMENT_VERSION = 1;

/** Effective ontology modes; `none` is the explicit absence of an adopted ontology. */
export const ONTOLOGY_MODES = ['none', 'advisory', 'strict'] as const;
/** One ontology mode. */
export type OntologyMode = (typeof ONTOLOGY_MODES)[number];

/** Modes an adoption may select (`none` is `clear_ontology`). */
export const ADOPT_MODES = ['advisory', 'strict'] as const;

/** Formats an ontology input may be written in (`source_format`; null for mode none). */
export const ONTOLOGY_SOURCE_FORMATS = ['yaml', 'json'] as const;
/** One ontology source format. */
export type OntologySourceFormat = (typeof ONTOLOGY_SOURCE_FORMATS)[number];

/** `workspace_ontology@1` fields, in the document's order (ADR-0014). */
export const WORKSPACE_ONTOLOGY_FIELDS = ['contract_version', 'mode', 'source_format', 'canonical_ontology_sha256', 'canonical_ontology'] as const;

/** `workspace_configuration@1` fields, in the document's order (ADR-0014). */
export const WORKSPACE_CONFIGURATION_FIELDS = ['contract_version', 'ontology_mode', 'capability_configuration', 'embedding_configuration'] as const;

/**
 * Bounds of an ontology input, checked before the parser runs.
 *
 * Bytes bound the text; depth bounds nesting (flow brackets and block
 * indentation are pre-scanned, the parsed value is checked again); entries
 * bound classes + relations; aliases are refused outright (no expansion).
 */
export const ONTOLOGY_INPUT_LIMITS = {
  bytes: 1024 * 1024,
  depth: 16,
  indentColumns: 64,
  entries: 10_000,
  /** Mapping keys in the input (10,000 entries of at most four keys each, with room). */
  keys: 50_000,
  /** Keys of one mapping (the model's widest has four; a wider one is never built in full). */
  mappingKeys: 64,
  idChars: 128,
  labelUtf8Bytes: 1024,
} as const;

/** The kind and bounds of one recognized configuration setting. */
export type SettingSpec =
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'identifier' };

/** Identifier settings (e.g. a model id): lowercase, no separator that could make it a path or a URL. */
export const SETTING_IDENTIFIER_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/** The recognized capability settings, with their literal ids (see `CAPABILITY_SETTINGS`). */
const CAPABILITY_SETTING_SPECS = {
  graph: { max_property_bytes: { kind: 'integer', min: 1, max: 16 * 1024 * 1024 } },
  knowledge: { min_confidence_percent: { kind: 'integer', min: 0, max: 100 } },
  provenance: { record_agents: { kind: 'boolean' } },
} as const satisfies Record<string, Record<string, SettingSpec>>;

type CapabilitySettingSpecs = typeof CAPABILITY_SETTING_SPECS;

/** `<capability>.<setting>` of every recognized capability setting: the engine enforces each one (core/participants/validate.ts). */
export type CapabilitySettingId = { [C in keyof CapabilitySettingSpecs]: `${C}.${keyof CapabilitySettingSpecs[C] & string}` }[keyof CapabilitySettingSpecs];

/**
 * `capability_configuration`: per registered capability id, its recognized settings (ids sorted).
 *
 * Versioned with the document (`contract_version` 1). Anything else is
 * refused. Only settings the engine enforces are listed, each by one
 * validation rule of the generation that holds the configuration:
 * - `graph.max_property_bytes`: a node's `properties` (canonical JSON) is at
 *   most this many UTF-8 bytes (`graph.node.max_property_bytes`);
 * - `knowledge.min_confidence_percent`: every confidence assessment is at
 *   least this percentage (`knowledge.confidence_assessment.min_confidence`);
 * - `provenance.record_agents`: when true, every provenance event names its
 *   agent (`provenance.event.agent_recorded`).
 * An absent setting constrains nothing.
 */
export const CAPABILITY_SETTINGS: Readonly<Record<string, Readonly<Record<string, SettingSpec>>>> = CAPABILITY_SETTING_SPECS;

/** `embedding_configuration`: the recognized embedding settings (ids sorted). */
export const EMBEDDING_SETTINGS: Readonly<Record<string, SettingSpec>> = {
  dimensions: { kind: 'integer', min: 1, max: 65_536 },
  distance: { kind: 'enum', values: ['cosine', 'dot', 'euclidean'] },
  model_id: { kind: 'identifier' },
};

/**
 * Rule ids of configuration refusals (`GF_VALIDATION` details `rule`), in the order they are checked.
 *
 * A secret, an environment override or a local path is refused as such even
 * under an unrecognized key; only then is an unknown key `unrecognized_setting`.
 */
export const CONFIGURATION_REFUSALS = {
  secret: 'workspace.configuration.secret',
  environmentOverride: 'workspace.configuration.environment_override',
  localPath: 'workspace.configuration.local_path',
  unrecognized: 'workspace.configuration.unrecognized_setting',
  value: 'workspace.configuration.setting_value',
} as const;

/**
 * Diagnostics channel on which a complete validation of a generation (a
 * checkpoint's first validation, a revert's staged copy) publishes
 * `{ done, total }` after each check it runs (the CLI's progress lines
 * listen to it by this name). Checks a validation record answers are not run.
 */
export const VALIDATION_PROGRESS_CHANNEL = 'graphforge:validation:progress';
