// The two workspace documents of ADR-0014 as logical values: the canonical
// ontology model, workspace_ontology@1 and workspace_configuration@1, their
// rules (shared by the participant families and by adopt/clear) and the
// explicit "no ontology" defaults.
import { canonicalJson, compareCodePoints, sha256Hex } from '../canonical/index';
import { GfError } from '../errors';
import {
  CAPABILITY_SETTINGS,
  CONFIGURATION_REFUSALS,
  EMBEDDING_SETTINGS,
  ONTOLOGY_INPUT_LIMITS,
  ONTOLOGY_MODES,
  ONTOLOGY_SOURCE_FORMATS,
  SETTING_IDENTIFIER_PATTERN,
  WORKSPACE_DOCUMENT_VERSION,
} from '../contract/workspace';
import type { OntologyMode, OntologySourceFormat, SettingSpec } from '../contract/workspace';
import { IDENTIFIER, NON_BLANK } from './rules';
import { hasUnshowableCharacter, isWellFormedText } from '../contract/names';

/** A class of the ontology model (canonical key order: id, label, parent_class_id). */
export interface OntologyClass {
  readonly id: string;
  readonly label: string;
  readonly parent_class_id: string | null;
}

/** A relation of the ontology model (canonical key order: domain_class_id, id, label, range_class_id). */
export interface OntologyRelation {
  readonly domain_class_id: string;
  readonly id: string;
  readonly label: string;
  readonly range_class_id: string;
}

/** The ontology model: classes and relations, each sorted by id (code point order). */
export interface OntologyModel {
  readonly classes: readonly OntologyClass[];
  readonly relations: readonly OntologyRelation[];
}

/** What is wrong with a model: a stable rule id and where (section, entry index, field); never a value. */
export interface ModelIssue {
  readonly rule: string;
  readonly section?: 'classes' | 'relations';
  readonly index?: number;
  readonly field?: string;
}

/** Ontology model rule ids, each with a failing-input test. */
export const ONTOLOGY_MODEL_RULES = [
  'workspace.ontology.model_shape',
  'workspace.ontology.entry_limit',
  'workspace.ontology.id_format',
  'workspace.ontology.label_nonblank',
  'workspace.ontology.label_text',
  'workspace.ontology.id_unique',
  'workspace.ontology.parent_not_self',
  'workspace.ontology.class_reference_exists',
  'workspace.ontology.parent_acyclic',
  'workspace.ontology.canonical_order',
] as const;

const CLASS_KEYS = ['id', 'label', 'parent_class_id'];
const RELATION_KEYS = ['domain_class_id', 'id', 'label', 'range_class_id'];
const encoder = new TextEncoder();

/** True for a plain JSON object (not an array, not a class instance). */
export function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function labelOk(v: unknown): boolean {
  return typeof v === 'string' && NON_BLANK.test(v) && encoder.encode(v).length <= ONTOLOGY_INPUT_LIMITS.labelUtf8Bytes;
}

/** A label as a person reads it: well-formed text (no U+FFFD of a lossy decoding), no control, bidi or invisible code point. */
function labelTextOk(v: string): boolean {
  return isWellFormedText(v) && !v.includes('\uFFFD') && !hasUnshowableCharacter(v);
}

/**
 * The first rule a model value breaks, or null.
 *
 * `stored` (a model inside a stored document): every key present, entries
 * sorted by id. Otherwise (an input): `relations` and `parent_class_id` may
 * be omitted, order is free. Checks run in a fixed order so the reported
 * issue is deterministic.
 */
export function ontologyModelIssue(value: unknown, stored: boolean): ModelIssue | null {
  const shape = (extra: Omit<ModelIssue, 'rule'> = {}): ModelIssue => ({ rule: 'workspace.ontology.model_shape', ...extra });
  if (!isPlain(value)) return shape();
  const keys = Object.keys(value);
  if (keys.some((k) => k !== 'classes' && k !== 'relations') || !Array.isArray(value.classes)) return shape();
  if (value.relations === undefined ? stored : !Array.isArray(value.relations)) return shape({ section: 'relations' });
  const classes = value.classes as unknown[];
  const relations = (value.relations ?? []) as unknown[];
  if (classes.length + relations.length > ONTOLOGY_INPUT_LIMITS.entries) return { rule: 'workspace.ontology.entry_limit' };
  const sections = [
    ['classes', classes, CLASS_KEYS, ['id', 'label']],
    ['relations', relations, RELATION_KEYS, RELATION_KEYS],
  ] as const;
  for (const [section, list, allowed, required] of sections) {
    for (let index = 0; index < list.length; index++) {
      const e = list[index];
      if (!isPlain(e)) return shape({ section, index });
      for (const k of Object.keys(e)) if (!allowed.includes(k)) return shape({ section, index });
      for (const k of stored ? allowed : required) if (!(k in e)) return shape({ section, index });
      for (const k of allowed) {
        const v = e[k];
        if (v === undefined || v === null) {
          if (k === 'parent_class_id') continue;
          return shape({ section, index, field: k });
        }
        if (typeof v !== 'string') return shape({ section, index, field: k });
      }
    }
  }
  for (const [section, list] of sections) {
    for (let index = 0; index < list.length; index++) {
      const e = list[index] as Record<string, unknown>;
      if (!IDENTIFIER.test(e.id as string)) return { rule: 'workspace.ontology.id_format', section, index, field: 'id' };
      if (!labelOk(e.label)) return { rule: 'workspace.ontology.label_nonblank', section, index, field: 'label' };
      // New input only (a stored model keeps what it was adopted with): a label is text a person reads.
      if (!stored && !labelTextOk(e.label as string)) return { rule: 'workspace.ontology.label_text', section, index, field: 'label' };
    }
  }
  const seen = new Set<string>();
  for (const [section, list] of sections) {
    for (let index = 0; index < list.length; index++) {
      const id = (list[index] as Record<string, unknown>).id as string;
      if (seen.has(id)) return { rule: 'workspace.ontology.id_unique', section, index, field: 'id' };
      seen.add(id);
    }
  }
  const classIds = new Set(classes.map((c) => (c as Record<string, unknown>).id as string));
  const parents = new Map<string, string>();
  for (let index = 0; index < classes.length; index++) {
    const c = classes[index] as Record<string, unknown>;
    const parent = c.parent_class_id;
    if (typeof parent !== 'string') continue;
    if (parent === c.id) return { rule: 'workspace.ontology.parent_not_self', section: 'classes', index, field: 'parent_class_id' };
    if (!classIds.has(parent)) return { rule: 'workspace.ontology.class_reference_exists', section: 'classes', index, field: 'parent_class_id' };
    parents.set(c.id as string, parent);
  }
  for (let index = 0; index < relations.length; index++) {
    const r = relations[index] as Record<string, unknown>;
    for (const field of ['domain_class_id', 'range_class_id']) {
      if (!classIds.has(r[field] as string)) return { rule: 'workspace.ontology.class_reference_exists', section: 'relations', index, field };
    }
  }
  for (let index = 0; index < classes.length; index++) {
    // Following parents from any class must end within the class count.
    let at: string | undefined = (classes[index] as Record<string, unknown>).id as string;
    for (let steps = 0; at !== undefined; steps++) {
      if (steps > classes.length) return { rule: 'workspace.ontology.parent_acyclic', section: 'classes', index, field: 'parent_class_id' };
      at = parents.get(at);
    }
  }
  if (stored) {
    for (const [section, list] of sections) {
      for (let index = 1; index < list.length; index++) {
        const a = (list[index - 1] as Record<string, unknown>).id as string;
        const b = (list[index] as Record<string, unknown>).id as string;
        if (compareCodePoints(a, b) >= 0) return { rule: 'workspace.ontology.canonical_order', section, index, field: 'id' };
      }
    }
  }
  return null;
}

function modelError(issue: ModelIssue): GfError {
  return new GfError('GF_VALIDATION', `the ontology breaks rule ${issue.rule}`, {
    rule: issue.rule,
    ...(issue.section === undefined ? {} : { section: issue.section }),
    ...(issue.index === undefined ? {} : { index: issue.index }),
    ...(issue.field === undefined ? {} : { field: issue.field }),
  });
}

/**
 * The canonical model of an ontology input value (validated, sorted by id, every key present).
 *
 * `GF_VALIDATION` with the rule id and the entry's position when the input
 * is not a valid ontology; details never hold input text.
 */
export function canonicalOntologyModel(value: unknown): OntologyModel {
  const issue = ontologyModelIssue(value, false);
  if (issue !== null) throw modelError(issue);
  const v = value as { classes: Record<string, string | null>[]; relations?: Record<string, string>[] };
  const byId = (a: { id: string }, b: { id: string }): number => compareCodePoints(a.id, b.id);
  const classes: OntologyClass[] = v.classes
    .map((c) => ({ id: c.id as string, label: c.label as string, parent_class_id: c.parent_class_id ?? null }))
    .sort(byId);
  const relations: OntologyRelation[] = (v.relations ?? [])
    .map((r) => ({ domain_class_id: r.domain_class_id as string, id: r.id as string, label: r.label as string, range_class_id: r.range_class_id as string }))
    .sort(byId);
  return { classes, relations };
}

/** SHA-256 (lowercase hex) of the model's canonical JSON bytes: `canonical_ontology_sha256`. */
export function canonicalOntologySha256(model: OntologyModel): string {
  return sha256Hex(encoder.encode(canonicalJson(model)));
}

/** `workspace_ontology@1` as values (field order is the document's). */
export interface OntologyDocument {
  readonly contract_version: number;
  readonly mode: OntologyMode;
  readonly source_format: OntologySourceFormat | null;
  readonly canonical_ontology_sha256: string | null;
  readonly canonical_ontology: OntologyModel | null;
}

/** The explicit absence of an ontology: mode none, digest null, no model. */
export const NO_ONTOLOGY: OntologyDocument = Object.freeze({
  contract_version: WORKSPACE_DOCUMENT_VERSION,
  mode: 'none',
  source_format: null,
  canonical_ontology_sha256: null,
  canonical_ontology: null,
});

/** The document of an adopted ontology. */
export function adoptedOntology(mode: Exclude<OntologyMode, 'none'>, sourceFormat: OntologySourceFormat, model: OntologyModel): OntologyDocument {
  return { contract_version: WORKSPACE_DOCUMENT_VERSION, mode, source_format: sourceFormat, canonical_ontology_sha256: canonicalOntologySha256(model), canonical_ontology: model };
}

/** A configuration setting's value: JSON scalars only. */
export type SettingValue = string | number | boolean;

/** `workspace_configuration@1` as values. */
export interface ConfigurationDocument {
  readonly contract_version: number;
  readonly ontology_mode: OntologyMode;
  readonly capability_configuration: Readonly<Record<string, Readonly<Record<string, SettingValue>>>>;
  readonly embedding_configuration: Readonly<Record<string, SettingValue>>;
}

/** The configuration of a workspace without an ontology and without settings. */
export const DEFAULT_CONFIGURATION: ConfigurationDocument = Object.freeze({
  contract_version: WORKSPACE_DOCUMENT_VERSION,
  ontology_mode: 'none',
  capability_configuration: {},
  embedding_configuration: {},
});

/** A document's rows for its participant table: one `(field, value)` per field, values as canonical JSON text. */
export function documentRows(doc: OntologyDocument | ConfigurationDocument, fields: readonly string[]): { field: string; value: string }[] {
  const d = doc as unknown as Record<string, unknown>;
  return fields.map((field) => ({ field, value: canonicalJson(d[field] ?? null) }));
}

// ------------------------------------------------------------ configuration

const SECRET_KEY = /(secret|passw|token|api_?key|credential|private_?key|auth|bearer|cookie|session)/i;
const SECRET_VALUE = /^(sk|pk|rk|ghp|gho|ghs|github_pat|xox[abpr]|AKIA)[-_A-Za-z0-9]{6,}|:\/\/[^/\s:@]*:[^/\s@]*@|^bearer\s|-----BEGIN [A-Z ]*PRIVATE KEY-----/i;
const ENV_KEY = /^(env|environment|overrides?)$|^env_|_env$|^[A-Z][A-Z0-9_]*$/;
const ENV_VALUE = /\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%/;
const PATH_KEY = /(^|_)(path|dir|directory|file|folder|home)$/i;
const PATH_VALUE = /^(\/|~|\.{1,2}[\\/]|[A-Za-z]:[\\/]|\\\\|file:)/i;
const SAFE_SETTING_ID = /^[a-z][a-z0-9_]{0,63}$/;

/** One refused or invalid configuration entry: the rule and (when printable) the setting's path. */
export interface ConfigurationIssue {
  readonly rule: string;
  readonly field: 'capability_configuration' | 'embedding_configuration' | 'ontology_mode' | 'contract_version';
  /** `<capability>.<setting>` or `<setting>`, only when every part is a safe identifier. */
  readonly setting?: string;
}

function screen(key: string, value: unknown): string | null {
  const text = typeof value === 'string' ? value : '';
  if (SECRET_KEY.test(key) || SECRET_VALUE.test(text)) return CONFIGURATION_REFUSALS.secret;
  if (ENV_KEY.test(key) || ENV_VALUE.test(text)) return CONFIGURATION_REFUSALS.environmentOverride;
  if (PATH_KEY.test(key) || PATH_VALUE.test(text)) return CONFIGURATION_REFUSALS.localPath;
  return null;
}

function settingValueOk(spec: SettingSpec, v: unknown): boolean {
  switch (spec.kind) {
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= spec.min && v <= spec.max;
    case 'boolean':
      return typeof v === 'boolean';
    case 'enum':
      return typeof v === 'string' && spec.values.includes(v);
    case 'identifier':
      return typeof v === 'string' && SETTING_IDENTIFIER_PATTERN.test(v);
  }
}

function sortedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort(compareCodePoints);
}

function settingsIssue(
  field: ConfigurationIssue['field'],
  prefix: string[],
  settings: unknown,
  registered: Readonly<Record<string, SettingSpec>> | undefined,
): ConfigurationIssue | null {
  const at = (rule: string, key?: string): ConfigurationIssue => {
    const parts = key === undefined ? prefix : [...prefix, key];
    const printable = parts.length > 0 && parts.every((p) => SAFE_SETTING_ID.test(p));
    return { rule, field, ...(printable ? { setting: parts.join('.') } : {}) };
  };
  if (!isPlain(settings)) return at(CONFIGURATION_REFUSALS.value);
  for (const key of sortedKeys(settings)) {
    const value = settings[key];
    const refused = screen(key, value);
    if (refused !== null) return at(refused, key);
    const spec = registered === undefined || !Object.prototype.hasOwnProperty.call(registered, key) ? undefined : registered[key];
    if (spec === undefined) return at(CONFIGURATION_REFUSALS.unrecognized, key);
    if (!settingValueOk(spec, value)) return at(CONFIGURATION_REFUSALS.value, key);
  }
  return null;
}

/**
 * The first refused or invalid entry of a configuration map, or null.
 *
 * Keys are checked in sorted order; a secret, an environment override or a
 * local path is refused as such before "not recognized" is considered.
 */
export function configurationMapIssue(field: 'capability_configuration' | 'embedding_configuration', value: unknown): ConfigurationIssue | null {
  if (field === 'embedding_configuration') return settingsIssue(field, [], value, EMBEDDING_SETTINGS);
  if (!isPlain(value)) return { rule: CONFIGURATION_REFUSALS.value, field };
  for (const capability of sortedKeys(value)) {
    const refused = screen(capability, value[capability]);
    const printable = SAFE_SETTING_ID.test(capability) ? { setting: capability } : {};
    if (refused !== null) return { rule: refused, field, ...printable };
    const registered = Object.prototype.hasOwnProperty.call(CAPABILITY_SETTINGS, capability) ? CAPABILITY_SETTINGS[capability] : undefined;
    if (registered === undefined) return { rule: CONFIGURATION_REFUSALS.unrecognized, field, ...printable };
    const issue = settingsIssue(field, [capability], value[capability], registered);
    if (issue !== null) return issue;
  }
  return null;
}

/** Throws `GF_VALIDATION` (rule, field, safe setting path) for the first bad entry of a configuration document. */
export function assertConfiguration(doc: ConfigurationDocument): void {
  if (!(ONTOLOGY_MODES as readonly string[]).includes(doc.ontology_mode)) {
    throw new GfError('GF_VALIDATION', 'the configuration names an unknown ontology mode', { rule: 'workspace.configuration.ontology_mode', field: 'ontology_mode' });
  }
  for (const field of ['capability_configuration', 'embedding_configuration'] as const) {
    const issue = configurationMapIssue(field, doc[field]);
    if (issue !== null) {
      throw new GfError('GF_VALIDATION', `the configuration breaks rule ${issue.rule}`, { ...issue });
    }
  }
}

/** True for a known source format. */
export function isSourceFormat(v: unknown): v is OntologySourceFormat {
  return typeof v === 'string' && (ONTOLOGY_SOURCE_FORMATS as readonly string[]).includes(v);
}
