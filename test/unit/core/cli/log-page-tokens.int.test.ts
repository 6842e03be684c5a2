import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';

// `gf log` page tokens are signed like the other keyset tokens: a token the
// engine did not issue for this listing (forged, edited, another filter or
// another workspace) is GF_PAGE_INVALID, never an empty page.

let base: string;
let demo: string;
let other: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-log-tokens-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  other = path.join(base, 'other');
  fs.cpSync(demo, other, { recursive: true });
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

interface Page {
  entries: { seq: number }[];
  next_page_token: string | null;
}

describe('gf log page tokens', () => {
  it('the next page of a real token follows on; forged and edited tokens are GF_PAGE_INVALID', async () => {
    const first = JSON.parse((await gf('log', '--project', demo, '--limit', '1', '--json')).out) as Page;
    const token = first.next_page_token as string;
    expect(token).not.toBeNull();
    const second = JSON.parse((await gf('log', '--project', demo, '--limit', '1', '--after', token, '--json')).out) as Page;
    expect(second.entries[0]?.seq).toBeLessThan(first.entries[0]?.seq as number);

    const digest = createHash('sha256').update(JSON.stringify([null, null, null])).digest('hex').slice(0, 16);
    const flipped = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    for (const forged of [`h1.1.${digest}`, `h1.999999999999.${digest}`, flipped, `${token}x`, 'x.y']) {
      const r = await gf('log', '--project', demo, '--after', forged);
      expect({ forged, code: r.code, err: r.err.split(':')[0] }).toEqual({ forged, code: 1, err: 'GF_PAGE_INVALID' });
      expect(r.out).toBe('');
    }
  });

  it('a token of another filter or another workspace is refused', async () => {
    const first = JSON.parse((await gf('log', '--project', demo, '--limit', '1', '--json')).out) as Page;
    const token = first.next_page_token as string;
    expect((await gf('log', '--project', demo, '--limit', '1', '--kind', 'publication', '--after', token)).err).toMatch(/^GF_PAGE_INVALID/);
    expect((await gf('log', '--project', other, '--limit', '1', '--after', token)).err).toMatch(/^GF_PAGE_INVALID/);
  });
});
