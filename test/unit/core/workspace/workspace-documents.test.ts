import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONFIGURATION,
  NO_ONTOLOGY,
  ONTOLOGY_MODEL_RULES,
  WORKSPACE_CONFIGURATION,
  WORKSPACE_ONTOLOGY,
  adoptedOntology,
  canonicalOntologyModel,
  configurationDocumentBytes,
  decodeParticipant,
  documentRows,
  encodeRecords,
  ontologyDocumentBytes,
  participantIssues,
  recordsFromTable,
} from '../../../../core/participants/index';
import { CAPABILITY_SETTINGS, EMBEDDING_SETTINGS, WORKSPACE_ONTOLOGY_FIELDS } from '../../../../core/contract/workspace';
import { parseOntologyInput } from '../../../../core/workspace/index';

// workspace_ontology@1 / workspace_configuration@1 (ADR-0014 "Complete
// workspace"): the expected bytes below are written from the ADR's text
// (ordered fields, canonical JSON + LF, explicit absence), not produced by
// the code under test; digests are recomputed here with node:crypto.

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const sha = (s: string): string => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

const YAML_INPUT = `# research ontology
relations:
  - id: cites
    label: Cites
    domain_class_id: paper
    range_class_id: paper
classes:
  - id: paper
    label: Paper
  - {id: author, label: "Author"}
`;
const JSON_INPUT = '{"classes":[{"label":"Paper","id":"paper"},{"id":"author","label":"Author","parent_class_id":null}],"relations":[{"id":"cites","label":"Cites","domain_class_id":"paper","range_class_id":"paper"}]}';
const MODEL = '{"classes":[{"id":"author","label":"Author","parent_class_id":null},{"id":"paper","label":"Paper","parent_class_id":null}],"relations":[{"domain_class_id":"paper","id":"cites","label":"Cites","range_class_id":"paper"}]}';

function codeOf(f: () => unknown): { code: string; rule?: unknown; committed?: unknown } {
  try {
    f();
    return { code: 'accepted' };
  } catch (e) {
    const g = e as { code?: string; details?: Record<string, unknown>; committed?: boolean };
    return { code: g.code ?? 'not-a-gf-error', rule: g.details?.['rule'], ...(g.committed === undefined ? {} : { committed: g.committed }) };
  }
}

describe('workspace_ontology@1 bytes', () => {
  it('absence is explicit: mode none, every other field null, in the ADR order, canonical JSON + LF', () => {
    expect(text(ontologyDocumentBytes(NO_ONTOLOGY))).toBe('{"contract_version":1,"mode":"none","source_format":null,"canonical_ontology_sha256":null,"canonical_ontology":null}\n');
  });

  it('an adopted ontology is the canonical model (not the input bytes), with its SHA-256, in the ADR order', () => {
    const model = canonicalOntologyModel(parseOntologyInput(YAML_INPUT, 'yaml'));
    const bytes = text(ontologyDocumentBytes(adoptedOntology('strict', 'yaml', model)));
    expect(bytes).toBe(`{"contract_version":1,"mode":"strict","source_format":"yaml","canonical_ontology_sha256":"${sha(MODEL)}","canonical_ontology":${MODEL}}\n`);
    // The same ontology written as JSON, keys and entries in another order: same model, same digest.
    const fromJson = canonicalOntologyModel(parseOntologyInput(JSON_INPUT, 'json'));
    expect(text(ontologyDocumentBytes(adoptedOntology('advisory', 'json', fromJson)))).toBe(
      `{"contract_version":1,"mode":"advisory","source_format":"json","canonical_ontology_sha256":"${sha(MODEL)}","canonical_ontology":${MODEL}}\n`,
    );
  });

  it('decodes to one (field, value) row per document field, so a record diff shows changes field by field', () => {
    const t = decodeParticipant(WORKSPACE_ONTOLOGY, ontologyDocumentBytes(NO_ONTOLOGY));
    expect(recordsFromTable(WORKSPACE_ONTOLOGY, t)).toEqual([
      { field: 'canonical_ontology', value: 'null' },
      { field: 'canonical_ontology_sha256', value: 'null' },
      { field: 'contract_version', value: '1' },
      { field: 'mode', value: '"none"' },
      { field: 'source_format', value: 'null' },
    ]);
  });

  it('a document must hold exactly its declared fields (participant.document_fields)', () => {
    const rows = documentRows(NO_ONTOLOGY, WORKSPACE_ONTOLOGY_FIELDS);
    expect(codeOf(() => encodeRecords(WORKSPACE_ONTOLOGY, rows.slice(1)))).toEqual({ code: 'GF_VALIDATION', rule: 'participant.document_fields' });
    expect(codeOf(() => encodeRecords(WORKSPACE_ONTOLOGY, [...rows, { field: 'extra', value: '1' }]))).toEqual({ code: 'GF_VALIDATION', rule: 'participant.document_fields' });
  });

  it('stored bytes in another field order, with whitespace or without the LF are GF_PROJECT_CORRUPT', () => {
    const good = text(ontologyDocumentBytes(NO_ONTOLOGY));
    const reordered = '{"mode":"none","contract_version":1,"source_format":null,"canonical_ontology_sha256":null,"canonical_ontology":null}\n';
    for (const bad of [reordered, good.replace(',"mode"', ', "mode"'), good.slice(0, -1), good.replace('"canonical_ontology":null', '"canonical_ontology":null,"extra":1')]) {
      expect(codeOf(() => decodeParticipant(WORKSPACE_ONTOLOGY, Buffer.from(bad))).code).toBe('GF_PROJECT_CORRUPT');
    }
  });

  it('domain rules judge a stored document: mode, explicit absence, digest, model order', () => {
    const model = canonicalOntologyModel(parseOntologyInput(YAML_INPUT, 'yaml'));
    const doc = adoptedOntology('strict', 'yaml', model);
    const issues = (d: object): unknown[] => participantIssues(WORKSPACE_ONTOLOGY, decodeParticipant(WORKSPACE_ONTOLOGY, ontologyDocumentBytes(d as typeof doc))).map((i) => i.rule);
    expect(issues(doc)).toEqual([]);
    expect(issues({ ...doc, mode: 'lenient' })).toContain('workspace.ontology.mode');
    expect(issues({ ...NO_ONTOLOGY, canonical_ontology: model })).toContain('workspace.ontology.absence_explicit');
    expect(issues({ ...doc, canonical_ontology_sha256: '0'.repeat(64) })).toContain('workspace.ontology.digest');
    expect(issues({ ...doc, source_format: null })).toContain('workspace.ontology.source_format');
    const unsorted = { ...model, classes: [...model.classes].reverse() };
    expect(issues({ ...doc, canonical_ontology: unsorted })).toContain('workspace.ontology.canonical_order');
  });
});

describe('ontology input and model rules', () => {
  const cls = (id: string, extra: object = {}) => ({ id, label: id, ...extra });
  const CASES: readonly [string, unknown][] = [
    ['workspace.ontology.model_shape', { classes: [cls('a')], extra: [] }],
    ['workspace.ontology.model_shape', { classes: [{ id: 'a', label: 'a', colour: 'red' }] }],
    ['workspace.ontology.entry_limit', { classes: Array.from({ length: 10_001 }, (_, i) => cls(`c${i}`)) }],
    ['workspace.ontology.id_format', { classes: [cls('has space')] }],
    ['workspace.ontology.label_nonblank', { classes: [{ id: 'a', label: '  ' }] }],
    ['workspace.ontology.label_text', { classes: [{ id: 'a', label: 'evil\u202Etxt.exe' }] }],
    ['workspace.ontology.id_unique', { classes: [cls('a'), cls('a')] }],
    ['workspace.ontology.parent_not_self', { classes: [cls('a', { parent_class_id: 'a' })] }],
    ['workspace.ontology.class_reference_exists', { classes: [cls('a')], relations: [{ id: 'r', label: 'r', domain_class_id: 'a', range_class_id: 'ghost' }] }],
    ['workspace.ontology.parent_acyclic', { classes: [cls('a', { parent_class_id: 'b' }), cls('b', { parent_class_id: 'a' })] }],
  ];
  it.each(CASES)('%s: GF_VALIDATION with the rule id', (rule, value) => {
    expect(codeOf(() => canonicalOntologyModel(value))).toMatchObject({ code: 'GF_VALIDATION', rule });
  });

  it('every model rule has a failing case (canonical_order applies to stored documents, tested above)', () => {
    expect([...new Set(CASES.map((c) => c[0])), 'workspace.ontology.canonical_order'].sort()).toEqual([...ONTOLOGY_MODEL_RULES].sort());
  });

  it('bounds size and depth before parsing, refuses aliases, duplicate keys and bad syntax without echoing input', () => {
    expect(codeOf(() => parseOntologyInput(`classes: []\n# ${'x'.repeat(1024 * 1024)}`, 'yaml'))).toEqual({ code: 'GF_RESOURCE_LIMIT', rule: 'workspace.ontology.input_limit', committed: false });
    expect(codeOf(() => parseOntologyInput(`${'['.repeat(20)}${']'.repeat(20)}`, 'json'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT', rule: 'workspace.ontology.input_limit' });
    expect(codeOf(() => parseOntologyInput(`${'['.repeat(5000)}`, 'yaml'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT' });
    const nested = Array.from({ length: 20 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n');
    expect(codeOf(() => parseOntologyInput(nested, 'yaml'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT' });
    expect(codeOf(() => parseOntologyInput('a: &x [1]\nb: *x\n', 'yaml'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_alias' });
    expect(codeOf(() => parseOntologyInput('a: 1\na: 2\n', 'yaml'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_syntax' });
    expect(codeOf(() => parseOntologyInput('{"a":1,"a":2}', 'json'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_syntax' });
    expect(codeOf(() => parseOntologyInput("{'a': 1}", 'json'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_syntax' });
  });
});

describe('workspace_configuration@1', () => {
  it('the default document: ADR field order, empty maps, canonical JSON + LF', () => {
    expect(text(configurationDocumentBytes(DEFAULT_CONFIGURATION))).toBe('{"contract_version":1,"ontology_mode":"none","capability_configuration":{},"embedding_configuration":{}}\n');
  });

  it('maps are ordered by registered stable ids whatever the input order', () => {
    const doc = { ...DEFAULT_CONFIGURATION, capability_configuration: { knowledge: { min_confidence_percent: 60 }, graph: { max_property_bytes: 4096 } }, embedding_configuration: { model_id: 'm1', dimensions: 8 } };
    expect(text(configurationDocumentBytes(doc))).toBe(
      '{"contract_version":1,"ontology_mode":"none","capability_configuration":{"graph":{"max_property_bytes":4096},"knowledge":{"min_confidence_percent":60}},"embedding_configuration":{"dimensions":8,"model_id":"m1"}}\n',
    );
    // The registries themselves are declared in id order.
    for (const reg of [CAPABILITY_SETTINGS, EMBEDDING_SETTINGS, ...Object.values(CAPABILITY_SETTINGS)]) expect(Object.keys(reg)).toEqual(Object.keys(reg).sort());
  });

  const refused = (embedding: object, capability: object = {}) =>
    participantIssues(WORKSPACE_CONFIGURATION, decodeParticipant(WORKSPACE_CONFIGURATION, configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, embedding_configuration: embedding as never, capability_configuration: capability as never }))).map((i) => i.rule);

  it.each([
    ['workspace.configuration.secret', { api_key: 'x' }],
    ['workspace.configuration.secret', { model_id: 'sk-abcdefghijkl' }],
    ['workspace.configuration.secret', { model_id: 'postgres://user:pw@host/db' }],
    ['workspace.configuration.environment_override', { OPENAI_MODEL: 'm' }],
    ['workspace.configuration.environment_override', { model_id: '${MODEL}' }],
    ['workspace.configuration.local_path', { cache_dir: 'x' }],
    ['workspace.configuration.local_path', { model_id: '/home/me/model.bin' }],
    ['workspace.configuration.unrecognized_setting', { ui_page_size: 100 }],
    ['workspace.configuration.setting_value', { dimensions: 0 }],
    ['workspace.configuration.setting_value', { distance: 'manhattan' }],
  ] as const)('embedding: %s', (rule, embedding) => {
    expect(refused(embedding)).toEqual([rule]);
  });

  it('capability configuration: unknown capability, secret or path under a capability, bad value', () => {
    expect(refused({}, { telemetry: {} })).toEqual(['workspace.configuration.unrecognized_setting']);
    expect(refused({}, { knowledge: { password: 'p' } })).toEqual(['workspace.configuration.secret']);
    expect(refused({}, { graph: { export_path: 'x' } })).toEqual(['workspace.configuration.local_path']);
    expect(refused({}, { knowledge: { min_confidence_percent: 101 } })).toEqual(['workspace.configuration.setting_value']);
    expect(refused({ dimensions: 384 }, { knowledge: { min_confidence_percent: 50 } })).toEqual([]);
  });
});
