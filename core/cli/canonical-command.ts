import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { CliIo } from './io';

function readVectorFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // The path is the user's own argument; it is still not echoed into error details.
    throw new GfError('GF_IO', 'cannot read the vector file', {});
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GfError('GF_VALIDATION', 'the vector file is not JSON', {});
  }
}

/**
 * `gf canonical vectors FILE [--json]`: computes every golden vector of FILE.
 *
 * It judges nothing: it prints what this implementation computes so anyone can
 * compare it with another implementation or with the file's expected values.
 */
export function registerCanonicalCommands(program: Command, io: CliIo): void {
  const canonical = program.command('canonical').description('canonical bytes, fingerprints and derived UUIDs');
  canonical
    .command('vectors')
    .description('compute the payload, SHA-256 and UUIDv8 of every vector of a golden-vector file')
    .argument('<file>', 'golden-vector JSON file')
    .option('--json', 'print a JSON array')
    .action(async (file: string, opts: { json?: boolean }) => {
      const { computeVectors } = await import('../canonical/golden-vectors'); // loaded by this command only (fast `gf --help`)
      const results = computeVectors(readVectorFile(file));
      if (opts.json) {
        io.stdout(`${JSON.stringify(results)}\n`);
        return;
      }
      for (const r of results) {
        if ('cases' in r) {
          r.cases.forEach((c, k) => {
            io.stdout(`${r.id} case ${k}: ${'error' in c ? `error ${c.error}` : `sha256 ${c.sha256} uuid_v8 ${c.uuid_v8}`}\n`);
          });
        } else {
          io.stdout(`${r.id}: ${r.error === null ? 'no error' : `error ${r.error}`}\n`);
        }
      }
    });
}
