// Bounded parsing of an ontology input (YAML or JSON text) into a plain value.
// Size and nesting are bounded BEFORE the parser runs; aliases are refused;
// errors carry positions and rule ids, never input text.
import { parseDocument, visit } from 'yaml';
import { GfError } from '../errors';
import { ONTOLOGY_INPUT_LIMITS } from '../contract/workspace';
import type { OntologySourceFormat } from '../contract/workspace';

const encoder = new TextEncoder();

function limit(kind: 'bytes' | 'depth' | 'indent', max: number): GfError {
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
    if (ch === '"' || (ch === "'" && format === 'yaml')) quote = ch;
    else if (ch === '#' && format === 'yaml') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (ch === '[' || ch === '{') {
      flow++;
      max = Math.max(max, block + flow);
    } else if (ch === ']' || ch === '}') flow = Math.max(0, flow - 1);
  }
  return max;
}

function depthOf(v: unknown, depth: number): number {
  if (typeof v !== 'object' || v === null) return depth;
  if (depth > ONTOLOGY_INPUT_LIMITS.depth) return depth;
  let max = depth + 1;
  for (const child of Array.isArray(v) ? v : Object.values(v)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

/**
 * Parses an ontology input with its bounds.
 *
 * `GF_RESOURCE_LIMIT` (rule `workspace.ontology.input_limit`) beyond 1 MiB,
 * nesting depth 16 or indentation 64 columns, checked before parsing;
 * `GF_VALIDATION` for syntax errors, duplicate keys (`input_syntax`, with
 * line and column) and aliases (`input_alias`). JSON must also be strict
 * JSON. Every refusal says `committed: false`.
 */
export function parseOntologyInput(text: string, format: OntologySourceFormat): unknown {
  if (text.length > ONTOLOGY_INPUT_LIMITS.bytes || encoder.encode(text).length > ONTOLOGY_INPUT_LIMITS.bytes) {
    throw limit('bytes', ONTOLOGY_INPUT_LIMITS.bytes);
  }
  if (prescanDepth(text, format) > ONTOLOGY_INPUT_LIMITS.depth) throw limit('depth', ONTOLOGY_INPUT_LIMITS.depth);
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (_e) {
      throw syntax(undefined, undefined);
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, version: '1.2', schema: format === 'json' ? 'json' : 'core', strict: true });
  const first = doc.errors[0];
  if (first !== undefined) throw syntax(first.linePos?.[0]?.line, first.linePos?.[0]?.col);
  let alias = false;
  visit(doc, {
    Alias() {
      alias = true;
      return visit.BREAK;
    },
  });
  if (alias) throw new GfError('GF_VALIDATION', 'the ontology input uses a YAML alias; write the value out', { rule: 'workspace.ontology.input_alias' }, false);
  const value: unknown = doc.toJS({ maxAliasCount: 0 });
  if (depthOf(value, 0) > ONTOLOGY_INPUT_LIMITS.depth) throw limit('depth', ONTOLOGY_INPUT_LIMITS.depth);
  return value;
}
