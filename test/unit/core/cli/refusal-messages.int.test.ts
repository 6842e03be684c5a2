import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf, runGf } from '../../../support/cli-run';
import { ensureCliBundle } from '../../../../scripts/build-cli.mjs';

// Every refusal of a request field names the field and the rule, in the
// contract's own words, the same on the API and the CLI (never only
// "request does not match the operation contract").

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-refusals-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  await ensureCliBundle();
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('refusal messages say which rule', () => {
  it('--limit 0 and --limit -1 get the same sentence: the page-size rule, naming the field', async () => {
    for (const limit of ['0', '-1']) {
      const r = await gf('checkpoint', 'list', '--project', demo, '--limit', limit);
      expect(r.code).toBe(1);
      expect(r.err).toBe('GF_VALIDATION: limit: a page size is at least 1\n');
    }
    expect((await gf('checkpoint', 'list', '--project', demo, '--limit', 'many')).err).toBe('GF_VALIDATION: limit: must be a whole number\n');
  });

  it('a bad name, a blank reason and a bad key each name the field and the rule (CLI and API alike)', async () => {
    const bad = await gf('checkpoint', 'create', 'a/b', '--project', demo);
    expect(bad.err).toMatch(/^GF_VALIDATION: name: a name cannot contain "\/" or "\\" \(names are never paths\)/m);
    const key = await gf('checkpoint', 'create', 'ok', '--project', demo, '--idempotency-key', 'not-a-uuid');
    expect(key.err).toMatch(/^GF_VALIDATION: idempotency_key: a UUID is canonical lowercase/m);
    const facade = createFacade({ mode: 'browser' });
    try {
      const opened = await facade.dispatcher.dispatch('project.open', { path: demo });
      const project = (opened as { ok: true; value: { project: string } }).value.project;
      const env = await facade.dispatcher.dispatch('checkpoints.create', { project, name: 'a\u034Fb', idempotency_key: '018f0f4e-7b8c-7000-8000-00000000f001' });
      expect(env).toMatchObject({ ok: false, error: { code: 'GF_VALIDATION', message: 'GF_VALIDATION: name: a name cannot contain invisible characters (it would look like another name)', details: { field: 'name', rule: 'invisible_character' } } });
      const page = await facade.dispatcher.dispatch('checkpoints.list', { project, limit: 0 });
      expect(page).toMatchObject({ ok: false, error: { message: 'GF_VALIDATION: limit: a page size is at least 1', details: { field: 'limit' } } });
    } finally {
      await facade.close();
    }
  });

  it('an ontology file with invalid UTF-8 is refused, not adopted lossily; a FIFO is refused at once; JSON with a BOM is adopted', async () => {
    const bad = path.join(base, 'bad.yaml');
    fs.writeFileSync(bad, Buffer.concat([Buffer.from('classes:\n  - id: a\n    label: caf'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]));
    const r = await gf('ontology', 'adopt', bad, '--mode', 'advisory', '--project', demo, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000f101');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^GF_VALIDATION: the ontology file is not valid UTF-8 text/m);
    const fifo = path.join(base, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const hung = await runGf(['ontology', 'adopt', fifo, '--mode', 'advisory', '--project', demo], 60_000);
    expect(hung.timedOut).toBe(false);
    expect(hung.err).toMatch(/GF_VALIDATION: the ontology file is a FIFO \(named pipe\), not a regular file/);
    const bom = path.join(base, 'bom.json');
    fs.writeFileSync(bom, `\uFEFF${JSON.stringify({ classes: [{ id: 'a', label: 'A' }] })}`);
    const ok = await gf('ontology', 'adopt', bom, '--mode', 'advisory', '--project', demo, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000f102', '--json');
    expect([ok.code, ok.err]).toEqual([0, '']);
  }, 120_000);

  it('every other file a command line names (a participant, a vector file, a file of expected heads) is refused at once when it is a FIFO or missing, in a sentence; nothing waits', async () => {
    const fifo = path.join(base, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const cases: readonly [readonly string[], string][] = [
      [['publish', '--project', demo, '--family', 'workspace/configuration', '--file', fifo], 'the participant file'],
      [['canonical', 'vectors', fifo], 'the vector file'],
      [['chain', 'verify', '--all', '--project', demo, '--expect-head', fifo], 'the file of expected heads'],
    ];
    for (const [args, what] of cases) {
      const r = await runGf(args, 60_000);
      expect({ args, timedOut: r.timedOut, code: r.code }).toEqual({ args, timedOut: false, code: 1 });
      expect(r.err).toMatch(new RegExp(`^GF_VALIDATION: ${what} is a FIFO \\(named pipe\\), not a regular file`, 'm'));
    }
    const missing = await gf('publish', '--project', demo, '--family', 'workspace/configuration', '--file', path.join(base, 'nowhere.arrow'));
    expect(missing.err).toMatch(/^GF_VALIDATION: the participant file does not exist/m);
  }, 200_000);
});
