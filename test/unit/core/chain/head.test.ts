import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastHeadsReady, GENESIS, isChainHead, nextHead, nextHeadNoble, nextHeadWasm, type ChainHead } from '../../../../core/chain/head';

describe('chain head', () => {
  it('GENESIS is blake3: followed by 64 zeros', () => {
    expect(GENESIS).toBe(`blake3:${'0'.repeat(64)}`);
    expect(isChainHead(GENESIS)).toBe(true);
  });

  it('is BLAKE3 over domain ‖ 0x00 ‖ prior ‖ 0x00 ‖ bytes (independent recomputation)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const input = Buffer.concat([Buffer.from('codegenie-checkpoint-chain/1'), Buffer.from([0]), Buffer.from(GENESIS), Buffer.from([0]), Buffer.from(bytes)]);
        expect(nextHead(GENESIS, bytes)).toBe(`blake3:${Buffer.from(blake3(input)).toString('hex')}`);
      }),
      { numRuns: 100 },
    );
  });

  it('is sensitive to the prior head and to every byte', () => {
    const b = new TextEncoder().encode('{"a":1}');
    const h1 = nextHead(GENESIS, b);
    expect(nextHead(h1, b)).not.toBe(h1);
    expect(nextHead(GENESIS, new TextEncoder().encode('{"a":2}'))).not.toBe(h1);
    expect(nextHead(GENESIS, b)).toBe(h1);
  });

  it('purity fence: head.ts reads no clock, randomness or environment', () => {
    const impure = /Date|Math\.random|process\.|crypto\.getRandomValues|performance/;
    const runtimeImports = (src: string): string[] => [...src.matchAll(/^(?:import|export)(?! type )[^;]*? from '([^']+)'/gm)].map((m) => m[1] as string);
    const headFile = join(import.meta.dirname, '../../../../core/chain/head.ts');
    const src = readFileSync(headFile, 'utf8');
    expect(src).not.toMatch(impure);
    const imports = [...src.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    // The only module of the project head.ts reads is the contract's chain head pattern (declared once there).
    expect(imports).toEqual(['@noble/hashes/blake3.js', '@noble/hashes/utils.js', 'hash-wasm', 'hash-wasm', '../contract/chain']);
    // That module, and everything it loads at run time, is pure too and brings in no package.
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(impure);
      for (const spec of runtimeImports(text)) {
        expect(spec.startsWith('.'), `${file} imports ${spec}`).toBe(true);
        visit(join(dirname(file), `${spec}.ts`));
      }
    };
    visit(join(dirname(headFile), '../contract/chain.ts'));
    expect([...seen].map((f) => f.split(/[\\/]core[\\/]/).pop())).toEqual([`contract${sep}chain.ts`, `contract${sep}errors.ts`, `errors.ts`]);
  });

  it('the WebAssembly BLAKE3 and the JS reference give the same head for any prior head and bytes', async () => {
    await fastHeadsReady;
    expect(nextHeadWasm(GENESIS, new Uint8Array())).toBeDefined();
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 5000 }), (priorBytes, bytes) => {
        const prior = `blake3:${Buffer.from(priorBytes).toString('hex')}` as ChainHead;
        const wasm = nextHeadWasm(prior, bytes);
        expect(wasm).toBe(nextHeadNoble(prior, bytes));
        expect(nextHead(prior, bytes)).toBe(wasm);
      }),
      { numRuns: 200 },
    );
  });
});
