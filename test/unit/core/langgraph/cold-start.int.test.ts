// Story S5-01 F1: importing core/langgraph in a fresh process loads neither checkpoint package nor pg.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./cold-start.child.ts', import.meta.url));
const PACKAGES = {
  '@langchain/langgraph-checkpoint-postgres': /[\\/]node_modules[\\/]@langchain[\\/]langgraph-checkpoint-postgres[\\/]/,
  '@langchain/langgraph-checkpoint-sqlite': /[\\/]node_modules[\\/]@langchain[\\/]langgraph-checkpoint-sqlite[\\/]/,
  pg: /[\\/]node_modules[\\/]pg[\\/]/,
} as const;

const loaded = (modules: readonly string[]): string[] => Object.entries(PACKAGES).filter(([, re]) => modules.some((m) => re.test(m))).map(([name]) => name);

it('F1: importing core/langgraph resolves none of the two checkpoint packages nor pg; first use of the adapters loads all three', async () => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], { encoding: 'utf8', timeout: 60_000 });
  const { before, after, pgError } = JSON.parse(stdout) as { before: string[]; after: string[]; pgError: string };
  expect(before.some((m) => m.includes('/core/langgraph/'))).toBe(true);
  expect(loaded(before)).toEqual([]);
  expect(pgError).toBe('no server in this child');
  expect(loaded(after)).toEqual(Object.keys(PACKAGES));
}, 90_000);
