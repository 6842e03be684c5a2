import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyArrowFileStructure } from '../../../../core/canonical/arrow-ipc-verify';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { GfError } from '../../../../core/errors';
import { runGf } from '../../../support/cli-run';

// Defect 3 of issue 23: validation of untrusted Arrow is bounded in time and
// memory (every metadata size checked against the file before a loop or an
// allocation) and refuses with GF_VALIDATION.

let base: string;
let demo: string;
let nodeBytes: Buffer;
const objects: { family: string; bytes: Buffer }[] = [];

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-arrow-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 200, seed: 1 });
  const cur = JSON.parse(fs.readFileSync(path.join(demo, 'CURRENT'), 'utf8')) as { generation_uuid: string };
  const m = JSON.parse(fs.readFileSync(path.join(demo, 'generations', cur.generation_uuid, 'manifest.json'), 'utf8')) as {
    participants: { capability_id: string; record_family_id: string; encoding: string; content_sha256: string }[];
  };
  for (const p of m.participants) {
    if (p.encoding !== 'arrow') continue;
    const bytes = fs.readFileSync(path.join(demo, 'objects', 'sha256', p.content_sha256.slice(0, 2), p.content_sha256.slice(2)));
    objects.push({ family: `${p.capability_id}/${p.record_family_id}`, bytes });
    if (p.capability_id === 'graph' && p.record_family_id === 'node') nodeBytes = bytes;
  }
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));


describe('defect 3: a malformed Arrow file makes gf publish spin', () => {
  it('bytes 23–26 of graph/node set to ff ff ff 7f: publish refuses with GF_VALIDATION at once; CURRENT is unchanged', { timeout: 120_000 }, async () => {
    const bad = Buffer.from(nodeBytes);
    bad.set([0xff, 0xff, 0xff, 0x7f], 23);
    const file = path.join(base, 'bad-node.arrow');
    fs.writeFileSync(file, bad);
    const current = fs.readFileSync(path.join(demo, 'CURRENT'));
    const r = await runGf(['publish', '--project', demo, '--family', 'graph/node', '--file', file], 60_000);
    expect({ timedOut: r.timedOut, code: r.code }).toEqual({ timedOut: false, code: 1 });
    expect(r.err).toMatch(/^GF_VALIDATION: participant bytes do not decode as their family \(committed: false\)/);
    expect(fs.readFileSync(path.join(demo, 'CURRENT'))).toEqual(current);
    // The next publish of good bytes works (the writer lock was released).
    const good = path.join(base, 'good-node.arrow');
    fs.writeFileSync(good, nodeBytes);
    const ok = await runGf(['publish', '--project', demo, '--family', 'graph/node', '--file', good], 60_000);
    expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: '' });
  });

  it('every demo object passes; every 4-byte edit of metadata is decoded or refused (never hangs), refusals are typed', () => {
    let seed = 7;
    const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    let refused = 0;
    let flagged = 0;
    for (const o of objects) {
      expect({ family: o.family, verdict: verifyArrowFileStructure(o.bytes) }).toEqual({ family: o.family, verdict: undefined });
      const [cap, fam] = o.family.split('/') as [string, string];
      const family = registryCatalog.family(cap, fam);
      if (family === undefined) throw new Error(o.family);
      for (let k = 0; k < 60; k++) {
        const b = Buffer.from(o.bytes);
        const at = k % 2 === 0 ? 8 + (rnd() % 480) : b.length - 10 - (rnd() % 400);
        const v = k % 3 === 0 ? [0xff, 0xff, 0xff, 0x7f] : [rnd() & 255, rnd() & 255, rnd() & 255, rnd() & 255];
        for (let i = 0; i < 4; i++) if (at + i >= 0 && at + i < b.length) b[at + i] = v[i] as number;
        if (verifyArrowFileStructure(b) !== undefined) flagged++;
        try {
          registryCatalog.decode(family, new Uint8Array(b));
        } catch (e) {
          refused++;
          expect((e as GfError).code).toMatch(/^GF_[A-Z_]+$/);
        }
      }
    }
    expect(flagged).toBeGreaterThan(0);
    expect(refused).toBeGreaterThanOrEqual(flagged);
  });
});
