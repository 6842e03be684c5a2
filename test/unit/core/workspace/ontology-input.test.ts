import { describe, expect, it } from 'vitest';
import { ONTOLOGY_INPUT_LIMITS } from '../../../../core/contract/workspace';
import { isGfError } from '../../../../core/errors';
import { canonicalOntologyModel } from '../../../../core/participants/document-values';
import { parseOntologyInput } from '../../../../core/workspace/index';
import { parseOntologyInputInBackground } from '../../../../core/workspace/ontology-input';

// Ontology input: bounded before the parser runs (keys, depth, bytes),
// linear after it (duplicate keys found with one set per mapping), parsed on
// a background thread, and labels that a person can read.

function refusal(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    if (isGfError(e)) return { code: e.code, ...e.details };
    throw e;
  }
  throw new Error('expected a refusal');
}

async function refusalOf(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    if (isGfError(e)) return { code: e.code, ...e.details };
    throw e;
  }
  throw new Error('expected a refusal');
}

const manyKeys = (n: number): string => Array.from({ length: n }, (_, i) => `k${String(i).padStart(5, '0')}: v\n`).join('');
const classes = (n: number): string => `classes:\n${Array.from({ length: n }, (_, i) => `  - id: c${i}\n    label: Class ${i}\n`).join('')}`;

describe('ontology input bounds', () => {
  it('the 60,000-key YAML of the report (818 KB, under the byte limit) is refused by the key bound, before any parser runs', () => {
    const text = manyKeys(60_000);
    expect(Buffer.byteLength(text)).toBeLessThan(ONTOLOGY_INPUT_LIMITS.bytes);
    expect(refusal(() => parseOntologyInput(text, 'yaml'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT', rule: 'workspace.ontology.input_limit', kind: 'keys', limit: 50_000 });
    const json = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expect(refusal(() => parseOntologyInput(json, 'json'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT', kind: 'keys' });
  });

  it('a mapping wider than any of the model\u2019s (64 keys) is refused as a limit; the widest real ontology (10,000 entries) parses', async () => {
    expect(refusal(() => parseOntologyInput(manyKeys(65), 'yaml'))).toMatchObject({ code: 'GF_RESOURCE_LIMIT', kind: 'mapping_keys', limit: 64 });
    const model = canonicalOntologyModel(await parseOntologyInputInBackground(classes(ONTOLOGY_INPUT_LIMITS.entries), 'yaml'));
    expect(model.classes.length).toBe(ONTOLOGY_INPUT_LIMITS.entries);
  });

  it('duplicate keys are still found (with the line of the second key), in a large input too, on both threads', async () => {
    const dup = `${classes(5_000)}relations: []\nclasses: []\n`;
    const line = dup.split('\n').length - 1;
    expect(refusal(() => parseOntologyInput(dup, 'yaml'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_syntax', line });
    expect(await refusalOf(parseOntologyInputInBackground(dup, 'yaml'))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.input_syntax', line });
    expect(await refusalOf(parseOntologyInputInBackground('{"classes":[],"classes":[]}', 'json'))).toMatchObject({ rule: 'workspace.ontology.input_syntax', line: 1, column: 15 });
    expect(await refusalOf(parseOntologyInputInBackground('a: &x [1]\nb: *x\n', 'yaml'))).toMatchObject({ rule: 'workspace.ontology.input_alias' });
  });

  it('the background parse gives exactly the value of the parse on this thread', async () => {
    const text = `${classes(300)}relations:\n  - {id: r, label: "R \u00e9", domain_class_id: c1, range_class_id: c2}\n`;
    expect(await parseOntologyInputInBackground(text, 'yaml')).toEqual(parseOntologyInput(text, 'yaml'));
  });

  it('a byte-order mark before JSON or YAML is not content: the input is accepted as without it', async () => {
    const json = '{"classes":[{"id":"a","label":"A"}]}';
    expect(await parseOntologyInputInBackground(`\uFEFF${json}`, 'json')).toEqual(JSON.parse(json));
    expect(parseOntologyInput('\uFEFFclasses: []\n', 'yaml')).toEqual({ classes: [] });
  });
});

describe('ontology labels', () => {
  const withLabel = (label: string) => ({ classes: [{ id: 'a', label }] });
  for (const [what, label] of [
    ['ESC', 'red \u001b[31m'],
    ['RLO (a bidi override)', 'evil\u202Etxt.exe'],
    ['a lone surrogate', 'half \uD800'],
    ['U+FFFD (invalid UTF-8 decoded lossily)', 'caf\uFFFD'],
    ['an invisible U+034F', 'a\u034Fb'],
  ] as const) {
    it(`a label with ${what} is refused (rule workspace.ontology.label_text), naming the entry`, () => {
      expect(refusal(() => canonicalOntologyModel(withLabel(label)))).toMatchObject({ code: 'GF_VALIDATION', rule: 'workspace.ontology.label_text', section: 'classes', index: 0, field: 'label' });
    });
  }
  it('ordinary labels in any script pass', () => {
    expect(canonicalOntologyModel(withLabel('Résumé — 論文 (v2)')).classes[0]?.label).toBe('Résumé — 論文 (v2)');
  });
});
