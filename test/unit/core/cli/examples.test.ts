import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../../../core/cli/main';

function leaves(cmd: Command, path: readonly string[] = []): string[][] {
  return cmd.commands.flatMap((sub) => {
    const p = [...path, sub.name()];
    return sub.commands.length === 0 ? [p] : leaves(sub, p);
  });
}

describe('gf --help', () => {
  const commands = leaves(buildProgram({ stdout: () => undefined, stderr: () => undefined }));

  it('covers every command group', () => {
    expect(commands.map((c) => c.join(' '))).toEqual(expect.arrayContaining(['checkpoint create', 'checkpoint diff', 'checkpoint revert', 'chain verify', 'demo create', 'publish', 'serve']));
  });

  it.each(commands.map((c) => [c.join(' '), c] as const))('%s --help ends with exactly one runnable example', async (_name, path) => {
    let out = '';
    const code = await main([...path, '--help'], { stdout: (c) => void (out += String(c)), stderr: () => undefined });
    expect(code).toBe(0);
    expect(out.split('Example:').length - 1).toBe(1);
    expect(out).toMatch(new RegExp(`Example:\\n\\s+gf ${path.join(' ')} `));
  });
});
