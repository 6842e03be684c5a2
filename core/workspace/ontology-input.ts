// Bounded parsing of an ontology input (YAML or JSON text) into a plain value.
// Size, nesting and key count are bounded BEFORE the parser runs; aliases are
// refused; errors carry positions and rule ids, never input text. The parse
// itself runs on a background thread, so a large input never holds up the
// thread that answers everyone else.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BackgroundWorker, WorkerGoneError } from '../background-worker';
import * as yaml from 'yaml';
import { GfError } from '../errors';
import { ONTOLOGY_INPUT_LIMITS } from '../contract/workspace';
import type { OntologySourceFormat } from '../contract/workspace';

const encoder = new TextEncoder();

function limit(kind: 'bytes' | 'depth' | 'indent' | 'keys' | 'mapping_keys', max: number): GfError {
  return new GfError('GF_RESOURCE_LIMIT', `the ontology input exceeds its ${kind} limit (${max})`, { rule: 'workspace.ontology.input_limit', kind, limit: max }, false);
}

function syntax(line: number | undefined, col: number | undefined): GfError {
  return new GfError('GF_VALIDATION', 'the ontology input is not valid YAML/JSON', {
    rule: 'workspace.ontology.input_syntax',
    ...(line === undefined ? {} : { line }),
    ...(col === undefined ? {} : { column: col }),
  }, false);
}

/**
 * Nesting depth of the text, scanned without parsing: flow brackets outside
 * quotes and comments, plus (YAML) the block indentation levels and compact
 * sequence markers open on the current line. An upper bound of what the
 * parser would build, so the parser never recurses past the bound.
 */
export function prescanDepth(text: string, format: OntologySourceFormat): number {
  return prescan(text, format).depth;
}

/**
 * Nesting depth (see `prescanDepth`) and an upper bound of the mapping keys,
 * in one linear pass: every `:` outside quotes and comments that ends a key
 * (JSON: any; YAML: followed by a space, a line end or the end) and every
 * explicit `? ` key indicator.
 */
export function prescan(text: string, format: OntologySourceFormat): { readonly depth: number; readonly keys: number } {
  let keys = 0;
  let max = 0;
  let flow = 0;
  const indents: number[] = [];
  let quote: '"' | "'" | null = null;
  let lineStart = true;
  let block = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== null) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (lineStart && format === 'yaml' && flow === 0) {
      let j = i;
      while (text[j] === ' ') j++;
      const indent = j - i;
      if (indent > ONTOLOGY_INPUT_LIMITS.indentColumns) throw limit('indent', ONTOLOGY_INPUT_LIMITS.indentColumns);
      if (text[j] !== '\n' && text[j] !== '#' && j < text.length) {
        while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
        indents.push(indent);
        let markers = 0;
        while (text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\n')) {
          markers++;
          j += 2;
          while (text[j] === ' ') j++;
        }
        block = indents.length + markers;
        max = Math.max(max, block);
      }
      lineStart = false;
    }
    if (ch === '\n') {
      lineStart = true;
      continue;
    }
    if (ch === ':' && (format === 'json' || i + 1 === text.length || text[i + 1] === ' ' || text[i + 1] === '\n' || text[i + 1] === '\r' || text[i + 1] === '\t' || flow > 0)) keys++;
    else if (ch === '?' && format === 'yaml' && (text[i + 1] === ' ' || text[i + 1] === '\n')) keys++;
    if (ch === '"' || (ch === "'" && format === 'yaml')) quote = ch;
    else if (ch === '#' && format === 'yaml') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (ch === '[' || ch === '{') {
      flow++;
      max = Math.max(max, block + flow);
    } else if (ch === ']' || ch === '}') flow = Math.max(0, flow - 1);
  }
  return { depth: max, keys };
}

function depthOf(v: unknown, depth: number): number {
  if (typeof v !== 'object' || v === null) return depth;
  if (depth > ONTOLOGY_INPUT_LIMITS.depth) return depth;
  let max = depth + 1;
  for (const child of Array.isArray(v) ? v : Object.values(v)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

/** What the parse step answers: the value, or the first problem (positions only, never text). */
type ParseOutcome =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'syntax'; readonly line?: number; readonly col?: number }
  | { readonly kind: 'alias' }
  | { readonly kind: 'wide' }
  | { readonly kind: 'json'; readonly json: string }
  | { readonly kind: 'failed' };

/**
 * The parse step, as the body of a function of `(yaml, text, format)`: one
 * program for both hosts (the background thread, and this thread when no
 * thread can be started). Linear in the input: the parser without its
 * quadratic duplicate-key check, then one pass over every mapping with a set
 * of its keys (a duplicate is a syntax error at the key; a mapping wider
 * than any of the model's is refused before its value is built and sent
 * back), aliases refused.
 */
const PARSE_BODY = `
const lineCounter = new yaml.LineCounter();
const doc = yaml.parseDocument(text, { uniqueKeys: false, prettyErrors: false, version: '1.2', schema: format === 'json' ? 'json' : 'core', strict: true, lineCounter });
const first = doc.errors[0];
if (first !== undefined) {
  const p = first.linePos && first.linePos[0];
  return p ? { kind: 'syntax', line: p.line, col: p.col } : { kind: 'syntax' };
}
let alias = false;
let wide = false;
let dup = null;
yaml.visit(doc, {
  Alias: () => {
    alias = true;
    return yaml.visit.BREAK;
  },
  Map: (_key, map) => {
    if (map.items.length > mappingKeys) {
      wide = true;
      return yaml.visit.BREAK;
    }
    const seen = new Set();
    for (const pair of map.items) {
      const k = pair.key;
      const id = yaml.isScalar(k) ? String(k.value) : JSON.stringify(k !== null && typeof k === 'object' && typeof k.toJSON === 'function' ? k.toJSON() : k);
      if (seen.has(id)) {
        dup = lineCounter.linePos(k && k.range ? k.range[0] : 0);
        return yaml.visit.BREAK;
      }
      seen.add(id);
    }
    return undefined;
  },
});
if (alias) return { kind: 'alias' };
if (wide) return { kind: 'wide' };
if (dup !== null) return { kind: 'syntax', line: dup.line, col: dup.col };
return { kind: 'value', value: doc.toJS({ maxAliasCount: 0 }) };
`;

type ParseStep = (y: typeof yaml, text: string, format: OntologySourceFormat, mappingKeys: number) => ParseOutcome;

const parseStep = new Function('yaml', 'text', 'format', 'mappingKeys', PARSE_BODY) as ParseStep;
const parseHere = (text: string, format: OntologySourceFormat): ParseOutcome => parseStep(yaml, text, format, ONTOLOGY_INPUT_LIMITS.mappingKeys);

/** The background thread's program: `yaml` loaded from the path this thread resolved, the same parse body. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const yaml = require(workerData.yaml);
const run = new Function('yaml', 'text', 'format', 'mappingKeys', workerData.body);
parentPort.on('message', (m) => {
  let result;
  try {
    result = run(yaml, m.text, m.format, workerData.mappingKeys);
    // Sent as JSON text: one string to copy, parsed on the other side by the fastest parser there is.
    if (result.kind === 'value') result = { kind: 'json', json: JSON.stringify(result.value) };
  } catch (_e) {
    result = { kind: 'failed' };
  }
  try {
    parentPort.postMessage({ id: m.id, result });
  } catch (_e) {
    parentPort.postMessage({ id: m.id, result: { kind: 'failed' } });
  }
});
`;

/**
 * The process's one ontology parse thread, started on first use and idle
 * without keeping the process alive. Requests queue on it in order. When it
 * cannot be started or stops, the parse runs on the calling thread (the
 * same program: same answers, only not in the background).
 */
class ParseThread {
  readonly #thread = new BackgroundWorker<{ readonly id: number; readonly result: ParseOutcome }>(
    () => new Worker(WORKER_SOURCE, { eval: true, workerData: { yaml: createRequire(import.meta.url).resolve('yaml'), body: PARSE_BODY, mappingKeys: ONTOLOGY_INPUT_LIMITS.mappingKeys } }),
    () => new WorkerGoneError('ontology parse'),
  );

  async parse(text: string, format: OntologySourceFormat): Promise<ParseOutcome> {
    const answer = this.#thread.request({ text, format });
    if (answer === undefined) return parseHere(text, format);
    try {
      return (await answer).result;
    } catch (e) {
      // A thread that stopped under this request: the same parse here.
      if (e instanceof WorkerGoneError) return parseHere(text, format);
      throw e;
    }
  }
}

const thread = new ParseThread();

/** The text without a leading byte-order mark (editors on Windows write one; it is not content, in YAML or in JSON). */
const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The bounds checked before any parser runs (bytes, depth, indentation, keys). */
function checkBounds(text: string, format: OntologySourceFormat): void {
  if (text.length > ONTOLOGY_INPUT_LIMITS.bytes || encoder.encode(text).length > ONTOLOGY_INPUT_LIMITS.bytes) {
    throw limit('bytes', ONTOLOGY_INPUT_LIMITS.bytes);
  }
  const scan = prescan(text, format);
  if (scan.depth > ONTOLOGY_INPUT_LIMITS.depth) throw limit('depth', ONTOLOGY_INPUT_LIMITS.depth);
  if (scan.keys > ONTOLOGY_INPUT_LIMITS.keys) throw limit('keys', ONTOLOGY_INPUT_LIMITS.keys);
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (_e) {
      throw syntax(undefined, undefined);
    }
  }
}

function valueOf(outcome: ParseOutcome): unknown {
  if (outcome.kind === 'syntax') throw syntax(outcome.line, outcome.col);
  if (outcome.kind === 'alias') throw new GfError('GF_VALIDATION', 'the ontology input uses a YAML alias; write the value out', { rule: 'workspace.ontology.input_alias' }, false);
  if (outcome.kind === 'wide') throw limit('mapping_keys', ONTOLOGY_INPUT_LIMITS.mappingKeys);
  if (outcome.kind === 'failed') throw syntax(undefined, undefined);
  if (outcome.kind === 'json') return valueOf({ kind: 'value', value: JSON.parse(outcome.json) as unknown });
  if (depthOf(outcome.value, 0) > ONTOLOGY_INPUT_LIMITS.depth) throw limit('depth', ONTOLOGY_INPUT_LIMITS.depth);
  return outcome.value;
}

/**
 * Parses an ontology input with its bounds, on this thread.
 *
 * `GF_RESOURCE_LIMIT` (rule `workspace.ontology.input_limit`) beyond 1 MiB,
 * nesting depth 16, indentation 64 columns or 50,000 keys, checked before
 * parsing, and a mapping of more than 64 keys; `GF_VALIDATION` for syntax errors, duplicate keys (`input_syntax`,
 * with line and column) and aliases (`input_alias`). JSON must also be strict
 * JSON. Every refusal says `committed: false`. Linear in the input.
 */
export function parseOntologyInput(input: string, format: OntologySourceFormat): unknown {
  const text = withoutBom(input);
  checkBounds(text, format);
  return valueOf(parseHere(text, format));
}

/** {@link parseOntologyInput}, with the parse on the background thread (the bounds are checked here first). */
export async function parseOntologyInputInBackground(input: string, format: OntologySourceFormat): Promise<unknown> {
  const text = withoutBom(input);
  checkBounds(text, format);
  return valueOf(await thread.parse(text, format));
}
