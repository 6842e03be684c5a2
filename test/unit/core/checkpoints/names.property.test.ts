import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { NAME_MAX_UTF8_BYTES, nameRefusal, normalizeName, utf8Length, validateDescription } from '../../../../core/contract/names';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { listPage } from '../../../../core/checkpoints/listing';
import { GfError } from '../../../../core/errors';
import { creating, removeRoot, tempRoot, uuidN, writerOf } from './registry-support';

/** A page-token key of this test (the codec takes its key from the caller). */
const TEST_KEY = (): Uint8Array => new Uint8Array(32).fill(7);

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof GfError ? e.code : 'not-gf';
  }
}

/** Pieces that make names both plausible and hostile. */
const PIECES = ['a', 'Z', '7', '_', '-', '.', ' ', '  ', 'é', 'e\u0301', '/', '\\', '\u0000', '\n', '\t', 'ｆ', '\u00a0', 'ß', '字', '🙂', '..', 'ﬁ', '\u200b', 'न', '\u093f', ':', '*'];
const nameLike = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 12 }).map((xs) => xs.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 140 }),
);

function walk(dir: string, base = ''): string[] {
  const out: string[] = [];
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = base === '' ? ent.name : `${base}/${ent.name}`;
    out.push(rel);
    if (ent.isDirectory()) out.push(...walk(path.join(dir, ent.name), rel));
  }
  return out.sort();
}

describe('checkpoint names', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) removeRoot(r);
  });

  it('checkpoint_names_are_content_not_paths', () => {
    // 1. The fuzzer: every input is either GF_VALIDATION or a normalized name obeying every rule.
    fc.assert(
      fc.property(nameLike, (raw) => {
        const code = codeOf(() => normalizeName(raw));
        if (code !== null) {
          expect(code).toBe('GF_VALIDATION');
          return;
        }
        const n = normalizeName(raw);
        expect(n).toBe(n.normalize('NFC'));
        expect(n.normalize('NFKC')).toBe(n);
        expect(utf8Length(n)).toBeGreaterThanOrEqual(1);
        expect(utf8Length(n)).toBeLessThanOrEqual(NAME_MAX_UTF8_BYTES);
        expect(n).not.toMatch(/[/\\\p{Cc}\p{Cf}]/u);
        expect(n).not.toMatch(/^\s|\s$|\s\s/u);
        expect(n === '.' || n === '..').toBe(false);
        expect(normalizeName(n)).toBe(n);
      }),
      { numRuns: 3000 },
    );

    // 2. Path-shaped and ambiguous names are refused with the documented kind.
    const refused: ReadonlyArray<readonly [string, string]> = [
      ['', 'empty'],
      ['.', 'dot_name'],
      ['..', 'dot_name'],
      ['../etc', 'path_separator'],
      ['a/b', 'path_separator'],
      ['a\\b', 'path_separator'],
      [' lead', 'outer_whitespace'],
      ['trail ', 'outer_whitespace'],
      ['two  spaces', 'repeated_whitespace'],
      ['nul\u0000byte', 'control_character'],
      ['new\nline', 'control_character'],
      ['zero\u200bwidth', 'control_character'],
      ['ｆullwidth', 'normalization_ambiguity'],
      ['ﬁle', 'normalization_ambiguity'],
      ['a:b', 'disallowed_character'],
      ['x'.repeat(129), 'too_long'],
      ['\ud800', 'malformed_unicode'],
    ];
    for (const [raw, refusal] of refused) {
      expect(nameRefusal(raw)).toBe(refusal);
      const e = (() => {
        try {
          normalizeName(raw);
        } catch (err) {
          return err as GfError;
        }
        throw new Error('accepted');
      })();
      expect(e.code).toBe('GF_VALIDATION');
      // Details never echo the caller's text.
      expect(JSON.stringify(e.details)).not.toContain(raw === '' ? '\u0001' : raw);
    }
    expect('é'.length).toBe(1);
    expect(normalizeName('caf\u0065\u0301')).toBe('caf\u00e9');
    expect(normalizeName('x'.repeat(128))).toHaveLength(128);
    expect(codeOf(() => normalizeName('é'.repeat(65)))).toBe('GF_VALIDATION'); // 130 bytes

    // 3. Accepted names that look like machine-owned paths stay content: stored only inside registry.json.
    const root = tempRoot();
    roots.push(root);
    const store = new CheckpointRegistryStore(root);
    const before = walk(root);
    // ('CURRENT' itself is the reserved diff selector: see current-selector.int.test.ts.)
    const hostileButValid = ['registry.json', 'FORMAT', 'transactions', '.registry', '..hidden', 'locks', 'checkpoints', 'generations', 'con', 'cafe\u0301', 'नमस्ते'];
    const sampled = fc.sample(nameLike.filter((s) => nameRefusal(s) === null), { numRuns: 40, seed: 42 });
    const accepted = [...new Set([...hostileButValid, ...sampled].map(normalizeName))];
    accepted.forEach((name, i) => store.mutate(writerOf(store.root), creating(name, uuidN(1000 + i))));
    const after = walk(root);
    const added = after.filter((p) => !before.includes(p));
    expect(added).toEqual(['checkpoints', 'checkpoints/registry.json', 'checkpoints/registry.json.sha256', 'locks/checkpoints.created', 'locks/checkpoints.lock']);
    const listed = listPage(store.read().doc, 10_000, undefined, TEST_KEY).rows.map((r) => r.name);
    expect([...listed].sort()).toEqual([...accepted].sort());
    // Names compare by exact normalized bytes: the decomposed spelling is the same checkpoint name.
    expect(codeOf(() => store.mutate(writerOf(store.root), creating('cafe\u0301', uuidN(5000))))).toBe('GF_CHECKPOINT_EXISTS');
    expect(codeOf(() => store.mutate(writerOf(store.root), creating('caf\u00e9', uuidN(5001))))).toBe('GF_CHECKPOINT_EXISTS');
  });

  it('descriptions are nullable, kept byte for byte, at most 1,024 UTF-8 bytes', () => {
    expect(validateDescription(undefined)).toBeNull();
    expect(validateDescription(null)).toBeNull();
    expect(validateDescription(' keep  spaces ')).toBe(' keep  spaces ');
    expect(validateDescription('é'.repeat(512))).toHaveLength(512);
    expect(codeOf(() => validateDescription('é'.repeat(513)))).toBe('GF_VALIDATION');
    expect(codeOf(() => validateDescription(42))).toBe('GF_VALIDATION');
  });
});
