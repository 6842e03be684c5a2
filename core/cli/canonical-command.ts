// `gf canonical vectors FILE`: read the file, dispatch `canonical.vectors`, format.
import { readUserFileOrRefuse } from './user-file';
import { MAX_VECTOR_FILE_CHARS, type VectorResultEntry } from '../contract/maintenance';
import type { Command } from 'commander';
import type { CliIo } from './io';
import { cliEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';

function readVectorFile(file: string): string {
  // The engine bounds the text in characters; UTF-8 takes at most 4 bytes a character.
  const bytes = readUserFileOrRefuse(file, { what: 'vector file', maxBytes: MAX_VECTOR_FILE_CHARS * 4, rule: 'canonical.vector_file_chars', field: 'text' });
  return bytes.toString('utf8');
}

/** The people-facing lines of the computed vectors. */
function vectorsText(results: readonly VectorResultEntry[]): string {
  const lines: string[] = [];
  for (const r of results) {
    if ('cases' in r) r.cases.forEach((c, k) => lines.push(`${r.id} case ${k}: ${'error' in c ? `error ${c.error}` : `sha256 ${c.sha256} uuid_v8 ${c.uuid_v8}`}\n`));
    else lines.push(`${r.id}: ${r.error === null ? 'no error' : `error ${r.error}`}\n`);
  }
  return lines.join('');
}

/** One CSV row per case (negative vectors: one row with their error). */
function vectorRows(results: readonly VectorResultEntry[]): Record<string, string | number | null>[] {
  return results.flatMap((r): Record<string, string | number | null>[] =>
    'cases' in r
      ? r.cases.map((c, k) => ({ id: r.id, case: k, error: 'error' in c ? c.error : null, sha256: 'error' in c ? null : c.sha256, uuid_v8: 'error' in c ? null : c.uuid_v8, canonical_payload_hex: 'error' in c ? null : c.canonical_payload_hex }))
      : [{ id: r.id, case: null, error: r.error, sha256: null, uuid_v8: null, canonical_payload_hex: null }],
  );
}

/**
 * `gf canonical vectors FILE [--json|--csv]`: computes every golden vector of FILE.
 *
 * It judges nothing: it prints what this implementation computes so anyone can
 * compare it with another implementation or with the file's expected values.
 */
export function registerCanonicalCommands(program: Command, io: CliIo): void {
  const canonical = program.command('canonical').description('canonical bytes, fingerprints and derived UUIDs');
  withOutputOptions(
    canonical
      .command('vectors')
      .description('compute the payload, SHA-256 and UUIDv8 of every vector of a golden-vector file')
      .argument('<file>', 'golden-vector JSON file')
      .addHelpText('after', '\n--json prints a JSON array (one entry per vector).\n'),
  ).action(async (file: string, opts: OutputFlags) => {
    const format = formatOf(opts);
    const text = readVectorFile(file);
    const e = await cliEngine();
    const { results } = await e.withFacade((call) => call('canonical.vectors', { text }));
    e.writeJsonResult(io, format, results, vectorsText, vectorRows);
  });
}
