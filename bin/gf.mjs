#!/usr/bin/env node
// The `gf` command: runs the CLI bundle (dist/cli, built JavaScript; no
// transpiler at run time). `npm install` builds it (the `prepare` script);
// a bundle older than its sources is rebuilt here before it runs, never used.
import { cliEntryUrl } from '../scripts/build-cli.mjs';

// A reader that stops early (`gf log | head`) closes the pipe: stop writing and end quietly, like git,
// rather than dying on EPIPE with a stack trace. Anything else on the output streams is a real failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
}

const entry = await cliEntryUrl('gf', { log: (line) => void (process.stderr.isTTY === true && process.stderr.write(`${line}\n`)) });
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
