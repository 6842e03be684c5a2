import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameProblem, nameRefusal } from '../../../../core/contract/names';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';

// Names that look like other names: a default-ignorable code point (U+034F
// COMBINING GRAPHEME JOINER, the Hangul fillers U+115F and U+1160, …) renders
// as nothing, so `a\u034Fb` would be a second, indistinguishable `ab`.

const INVISIBLE = ['a\u034Fb', '\u115F', '\u1160', 'x\u115Fy', 'release\u1160', 'a\u3164b', 'a\uFE0Fb'];

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-names-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('invisible code points in names', () => {
  for (const name of INVISIBLE) {
    it(`${JSON.stringify(name)} is refused as invisible_character, with a sentence`, () => {
      expect(nameRefusal(name)).toBe('invisible_character');
      expect(nameProblem(name)).toMatch(/invisible characters/);
    });
  }

  it('gf checkpoint create refuses them and creates nothing; the visible name still works', async () => {
    for (const name of ['a\u034Fb', '\u115F', 'x\u1160y']) {
      const r = await gf('checkpoint', 'create', name, '--project', demo);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^GF_VALIDATION: name: a name cannot contain invisible characters/m);
    }
    const list = JSON.parse((await gf('checkpoint', 'list', '--project', demo, '--json')).out) as { name: string }[] | { rows: { name: string }[] };
    const names = (Array.isArray(list) ? list : list.rows).map((c) => c.name);
    expect(names.some((n) => /[\u034F\u115F\u1160]/u.test(n))).toBe(false);
    expect((await gf('checkpoint', 'create', 'ab', '--project', demo)).code).toBe(0);
  });

  it('letters, marks after letters and ordinary spaces are still names', () => {
    for (const ok of ['ab', 'e\u0301', 'नि', 'Release 1.0', '한글']) expect(nameRefusal(ok)).toBeNull();
  });
});
