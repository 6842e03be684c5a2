import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf, runGf } from '../../../support/cli-run';
import { ensureCliBundle } from '../../../../scripts/build-cli.mjs';

// `gf doctor` tells the truth: it sees what create and publish would trip on
// (an object of CURRENT missing or with one byte flipped), every machine-owned
// file that is not a regular file (never waiting on a FIFO), and it exits
// non-zero whenever it lists an anomaly.

interface Report {
  anomalies: { path: string; problem: string; remedy: string; repairable: boolean }[];
}

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-doctor-truth-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
  await ensureCliBundle();
}, 120_000);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function copyDemo(name: string): string {
  const dir = path.join(base, name);
  fs.cpSync(demo, dir, { recursive: true });
  return dir;
}

/** The CURRENT generation and the object path of its first participant. */
function currentObject(dir: string): { generation: string; object: string } {
  const generation = (JSON.parse(fs.readFileSync(path.join(dir, 'CURRENT'), 'utf8')) as { generation_uuid: string }).generation_uuid;
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'generations', generation, 'manifest.json'), 'utf8')) as { participants: { content_sha256: string }[] };
  const sha = manifest.participants[0]?.content_sha256 as string;
  return { generation, object: `objects/sha256/${sha.slice(0, 2)}/${sha.slice(2)}` };
}

async function doctor(dir: string): Promise<{ code: number; report: Report; err: string }> {
  const r = await gf('doctor', '--project', dir, '--json');
  return { code: r.code, report: JSON.parse(r.out) as Report, err: r.err };
}

describe('gf doctor sees what the other commands trip on', () => {
  it('an object of CURRENT deleted: an anomaly at the object, exit 1 (and create refuses the same workspace)', async () => {
    const dir = copyDemo('deleted');
    const { object } = currentObject(dir);
    fs.rmSync(path.join(dir, object));
    const d = await doctor(dir);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/^GF_PROJECT_CORRUPT: gf doctor found \d+ anomal/);
    expect(d.report.anomalies.find((a) => a.path === object)?.problem).toMatch(/^participant object is missing \(generation /);
    expect((await gf('checkpoint', 'create', 'after', '--project', dir)).err).toMatch(/^GF_PROJECT_CORRUPT/m);
  });

  it('one byte of an object flipped: an anomaly at the object, exit 1', async () => {
    const dir = copyDemo('flipped');
    const { object } = currentObject(dir);
    const file = path.join(dir, object);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 0x01;
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, bytes);
    const d = await doctor(dir);
    expect(d.code).toBe(1);
    const found = d.report.anomalies.find((a) => a.path === object);
    expect(found?.problem).toMatch(/^participant object does not match its name \(generation /);
    expect(found?.repairable).toBe(false);
  });

  it('a FIFO as history/lineage.jsonl, as a generation\u2019s lease.lock or as an object: named for what it is, never waited on', async () => {
    const dir = copyDemo('fifos');
    const { generation, object } = currentObject(dir);
    for (const rel of ['history/lineage.jsonl', `generations/${generation}/lease.lock`, object]) {
      fs.rmSync(path.join(dir, rel), { force: true });
      execFileSync('mkfifo', [path.join(dir, rel)]);
    }
    const run = await runGf(['doctor', '--project', dir, '--json'], 60_000);
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(1);
    const d = await doctor(dir);
    const by = new Map(d.report.anomalies.map((a) => [a.path, a.problem]));
    expect(by.get('history/lineage.jsonl')).toMatch(/^a FIFO \(named pipe\) where gf keeps a regular file/);
    expect(by.get(`generations/${generation}/lease.lock`)).toMatch(/^a FIFO \(named pipe\) where gf keeps a regular file/);
    expect(by.get(object)).toMatch(/^(an object that is a FIFO|not a regular file)/);
    expect(d.report.anomalies.some((a) => a.problem === 'unexpected entry')).toBe(false);
  }, 120_000);

  it('a healthy workspace: no anomalies and exit 0', async () => {
    const d = await doctor(copyDemo('healthy'));
    expect([d.code, d.report.anomalies]).toEqual([0, []]);
  });
});
