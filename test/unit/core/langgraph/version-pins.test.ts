// Story S5-01 B4/D3: the LangGraph checkpoint packages are pinned exactly, and the
// installed versions are the pinned ones (an upstream checkpoint-format bump is deliberate).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The packages whose version decides the checkpoint format or the conformance verdict. */
const PINNED = ['@langchain/langgraph-checkpoint-postgres', '@langchain/langgraph-checkpoint-sqlite', '@langchain/langgraph-checkpoint', '@langchain/core', '@langchain/langgraph-checkpoint-validation'] as const;
const installed = (name: string): string => (require(`${name}/package.json`) as { version: string }).version;

describe('LangGraph checkpoint version pins', () => {
  it.each(PINNED)('%s is pinned to one exact version in package.json, and that version is installed', (name) => {
    const pin = manifest.dependencies[name] ?? manifest.devDependencies[name];
    expect(pin, `${name} is missing from package.json`).toBeDefined();
    expect(pin).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed(name)).toBe(pin);
  });

  it('the measured upstream versions are the pinned ones (checkpoint-postgres 1.0.5, checkpoint-sqlite 1.0.4)', () => {
    expect(manifest.dependencies['@langchain/langgraph-checkpoint-postgres']).toBe('1.0.5');
    expect(manifest.dependencies['@langchain/langgraph-checkpoint-sqlite']).toBe('1.0.4');
  });
});
