#!/usr/bin/env node
// The `gf` command: runs the TypeScript CLI through tsx's loader, so a fresh
// clone needs no build step before `npx gf`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../core/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
