import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { armIoFaultForTesting } from '../../../../core/project/fs-layer';
import { gf } from '../../../support/cli-run';

// The "low" defects of issue 23 (7), each a test.

let base: string;
let demo: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-low-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function copy(name: string): string {
  const dir = path.join(base, name);
  fs.cpSync(demo, dir, { recursive: true });
  return dir;
}

// eslint-disable-next-line no-control-regex -- the assertion is about control characters
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('defect 7: terminal escape injection', () => {
  it('a description with ESC/OSC/BEL is printed escaped by checkpoint list (table) and in receipts; JSON keeps the exact value', async () => {
    const dir = copy('escape');
    const evil = '\u001b[2J\u001b]0;pwned\u0007';
    const created = await gf('checkpoint', 'create', 'esc', '--project', dir, '--description', evil, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000e001');
    expect(created.code).toBe(0);
    expect(created.out).not.toMatch(TERMINAL_CONTROL);
    {
      const list = await gf('checkpoint', 'list', '--project', dir);
      expect(list.code).toBe(0);
      expect(list.out).not.toMatch(TERMINAL_CONTROL);
      expect(list.out).toContain('\\u001b[2J\\u001b]0;pwned\\u0007');
    }
    const json = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect(json.out).not.toMatch(TERMINAL_CONTROL);
    const rows = (JSON.parse(json.out) as { rows: { name: string; description: string }[] }).rows;
    expect(rows.find((r) => r.name === 'esc')?.description).toBe(evil);
  });
});

describe('defect 7: invisible reasons', () => {
  it.each([
    ['U+200B alone', '\u200b'],
    ['NUL', 'a\u0000b'],
    ['word joiner and BOM', '\u2060\ufeff'],
    ['ESC', 'ok\u001b[2J'],
  ])('a reason of %s is refused with GF_VALIDATION and nothing changes', async (_label, reason) => {
    const dir = copy(`reason-${_label.replace(/\W+/g, '-')}`);
    const before = fs.readFileSync(path.join(dir, 'CURRENT'));
    const r = await gf('checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', reason, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000e002');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^GF_VALIDATION: reason must/);
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(before);
  });
});

describe('defect 7: CLI errors drop the file and the errno', () => {
  it('a failed open names the machine-owned path relative to the workspace and the errno, never an absolute path', async () => {
    const dir = copy('details');
    armIoFaultForTesting('1:EACCES:open');
    let r;
    try {
      r = await gf('checkpoint', 'list', '--project', dir);
    } finally {
      armIoFaultForTesting(undefined);
    }
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^GF_IO: open failed \(committed: false\) \[path: FORMAT, errno: EACCES\]\n$/);
    expect(r.err).not.toContain(base);
  });
});

describe('defect 7: garbage bytes in writer.lock make even list fail', () => {
  it('readers list, open and diff with garbage in locks/writer.lock; a writer reports the lock file by name', async () => {
    const dir = copy('lock-garbage');
    fs.writeFileSync(path.join(dir, 'locks', 'writer.lock'), Buffer.alloc(4096, 0xa5));
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
    const open = await gf('checkpoint', 'open', 'Graph imported', '--project', dir, '--json', '--', 'participants');
    expect({ code: open.code, err: open.err }).toEqual({ code: 0, err: '' });
    const diff = await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--project', dir, '--json');
    expect({ code: diff.code, err: diff.err }).toEqual({ code: 0, err: '' });
    const write = await gf('checkpoint', 'create', 'x', '--project', dir, '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000e003');
    expect(write.code).toBe(1);
    expect(write.err).toContain('[path: locks/writer.lock');
  });
});
