import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createFacade } from '../../../../core/api/facade';
import type { HistoryPage } from '../../../../core/contract/history';
import { unwrapEnvelope } from '../../../../core/contract/wire';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { LINEAGE_GENESIS, createProject, openProject, readLineage } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { putConfig, putEdges, putNodes, testUuid } from '../../../support/project-fixtures';

// The lineage log (GENERATIONS.md "Lineage log"): one chained line per
// generation that became CURRENT; a torn or missing final line is rebuilt
// byte for byte from the journal and manifest; a line that does not verify
// is GF_PROJECT_CORRUPT, never skipped; history reads it, pruned rows included.

let tmp: string;
let n = 0;
const T0 = 1_767_225_600_000_000;
const LOG = 'history/lineage.jsonl';

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-lineage-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A workspace with three generations (first, publication, publication), published at T0, T0+1, T0+2. */
async function threeGenerations(retainAncestors?: number): Promise<{ dir: string; gens: string[] }> {
  const dir = path.join(tmp, `w${n++}`);
  const p = await createProject<Table>(dir, { catalog: registryCatalog, ...(retainAncestors === undefined ? {} : { retainAncestors }) });
  const gens: string[] = [];
  const steps = [[putNodes(4, 'a'), putEdges(2, 'a'), putConfig('a')], [putNodes(5, 'a')], [putConfig('c')]];
  for (const [i, changes] of steps.entries()) {
    const r = await p.publish({ parent: p.current()?.generationUuid ?? null, changes, lineage: { publishedAt: T0 + i, actor: i === 1 ? testUuid('actor') : null } });
    gens.push(r.generationUuid);
  }
  return { dir, gens };
}

const logBytes = (dir: string): Buffer => fs.readFileSync(path.join(dir, LOG));
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
    return 'no error';
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
}

describe('lineage log', () => {
  it('has one chained canonical line per publication, in order, with kind, actor, time and participants changed', async () => {
    const { dir, gens } = await threeGenerations();
    const log = readLineage(dir);
    expect(log.records.map((r) => [r.seq, r.generationUuid, r.kind, r.publishedAt, r.participantsChanged])).toEqual([
      // Three put by the caller, plus the mandatory workspace ontology document the publication fills in (ADR-0014).
      [1, gens[0], 'first', T0, 4],
      [2, gens[1], 'publication', T0 + 1, 1],
      [3, gens[2], 'publication', T0 + 2, 1],
    ]);
    expect(log.records.map((r) => r.parentGenerationUuid)).toEqual([null, gens[0], gens[1]]);
    expect(log.records[1]?.actor).toBe(testUuid('actor'));
    // The chain: genesis, then each line's SHA-256 over its exact bytes (LF included).
    const lines = logBytes(dir).toString('utf8').split(/(?<=\n)/);
    expect(log.records.map((r) => r.prevLineSha256)).toEqual([LINEAGE_GENESIS, sha(Buffer.from(lines[0] as string)), sha(Buffer.from(lines[1] as string))]);
    expect(JSON.parse(lines[0] as string)).toEqual(expect.objectContaining({ seq: 1, kind: 'first', reason: null, restored_checkpoint_uuid: null }));
  });

  it('a torn final line is detected and rebuilt byte for byte from the journal and manifest at the next open', async () => {
    const { dir } = await threeGenerations();
    const whole = logBytes(dir);
    const lastStart = whole.subarray(0, -1).lastIndexOf(0x0a) + 1;
    fs.truncateSync(path.join(dir, LOG), lastStart + 40); // a torn write: part of the last line, no LF
    expect(readLineage(dir).tornBytes).toBe(40);
    const p = await openProject<Table>(dir, { catalog: registryCatalog }); // recovery under the free writer lock
    expect(logBytes(dir).equals(whole)).toBe(true);
    const report = await p.recover();
    expect(report.lineage).toEqual({ truncatedBytes: 0, appended: [] }); // idempotent
  });

  it('a lost final line (the kill came before the append) is rebuilt; the next publication chains after it', async () => {
    const { dir, gens } = await threeGenerations();
    const whole = logBytes(dir);
    const lastStart = whole.subarray(0, -1).lastIndexOf(0x0a) + 1;
    fs.truncateSync(path.join(dir, LOG), lastStart);
    expect(readLineage(dir).records.map((x) => x.generationUuid)).toEqual(gens.slice(0, 2));
    const p = await openProject<Table>(dir, { catalog: registryCatalog, recover: false });
    await p.recover();
    expect(logBytes(dir).equals(whole)).toBe(true);
    const r = await p.publish({ parent: gens[2] as string, changes: [putConfig('d')] });
    expect(readLineage(dir).records.map((x) => x.generationUuid)).toEqual([...gens, r.generationUuid]);
  });

  it('an edited line is GF_PROJECT_CORRUPT for history (never skipped); recovery and the next writer leave it as it is', async () => {
    const { dir } = await threeGenerations();
    const whole = logBytes(dir);
    const edited = Buffer.from(whole);
    const at = edited.indexOf('"participants_changed":4');
    expect(at).toBeGreaterThan(0);
    edited.write('"participants_changed":5', at);
    fs.writeFileSync(path.join(dir, LOG), edited);
    expect(await codeOf(() => readLineage(dir))).toBe('GF_PROJECT_CORRUPT');
    const facade = createFacade({ mode: 'library' });
    try {
      const { project } = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: dir })) as { project: string };
      const env = await facade.dispatcher.dispatch('history.list', { project });
      // Line 1 is still canonical JSON: the edit shows at line 2, whose prev_line_sha256 no longer matches.
      expect(env.ok ? 'ok' : [env.error.code, env.error.details['name'], env.error.details['line']]).toEqual(['GF_PROJECT_CORRUPT', LOG, 2]);
    } finally {
      await facade.close();
    }
    // Writers chain on from the verified last line (reading only the end); the damaged line stays as evidence.
    const p = await openProject<Table>(dir, { catalog: registryCatalog });
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig('x')] });
    expect(logBytes(dir).subarray(0, edited.length).equals(edited)).toBe(true);
    expect(await codeOf(() => readLineage(dir))).toBe('GF_PROJECT_CORRUPT');
  });

  it('a torn line that cannot be rebuilt (its journal is gone) fails closed and is not cut', async () => {
    const { dir } = await threeGenerations();
    const whole = logBytes(dir);
    fs.truncateSync(path.join(dir, LOG), whole.length - 5);
    fs.rmSync(path.join(dir, 'transactions'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'transactions'));
    const torn = logBytes(dir);
    const p = await openProject<Table>(dir, { catalog: registryCatalog, recover: false });
    expect(await codeOf(() => p.recover())).toBe('GF_PROJECT_CORRUPT');
    expect(logBytes(dir).equals(torn)).toBe(true);
  });

  it('retention never touches the log: history lists the pruned generations, newest first by publication order', async () => {
    const { dir, gens } = await threeGenerations(0);
    const facade = createFacade({ mode: 'library' });
    try {
      const { project } = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: dir })) as { project: string };
      // The window was 0 at publication time; the workspace default (2) now applies to the facade's session.
      const page = unwrapEnvelope(await facade.dispatcher.dispatch('history.list', { project })) as HistoryPage;
      expect(page.entries.map((e) => [e.seq, e.generation_uuid, e.status])).toEqual([
        [3, gens[2], 'current'],
        [2, gens[1], 'pruned'],
        [1, gens[0], 'pruned'],
      ]);
      expect(page.entries[2]).toMatchObject({ kind: 'first', published_at: '2026-01-01T00:00:00.000000Z', participants_changed: 4, checkpoints: [] });
      expect(fs.existsSync(path.join(dir, 'generations', gens[0] as string))).toBe(false);
      // Keyset paging: two pages of one and two, the token bound to its filter.
      const p1 = unwrapEnvelope(await facade.dispatcher.dispatch('history.list', { project, limit: 1 })) as HistoryPage;
      expect(p1.entries.map((e) => e.seq)).toEqual([3]);
      const p2 = unwrapEnvelope(await facade.dispatcher.dispatch('history.list', { project, limit: 2, after: p1.next_page_token })) as HistoryPage;
      expect([p2.entries.map((e) => e.seq), p2.next_page_token]).toEqual([[2, 1], null]);
      const wrongFilter = await facade.dispatcher.dispatch('history.list', { project, limit: 2, after: p1.next_page_token, kind: 'first' });
      expect(wrongFilter.ok ? 'ok' : wrongFilter.error.code).toBe('GF_PAGE_INVALID');
      const firsts = unwrapEnvelope(await facade.dispatcher.dispatch('history.list', { project, kind: 'first' })) as HistoryPage;
      expect(firsts.entries.map((e) => e.generation_uuid)).toEqual([gens[0]]);
    } finally {
      await facade.close();
    }
  });

  it('history names checkpoints and finds rows by a checkpoint name', async () => {
    const { dir, gens } = await threeGenerations();
    const p = await openCheckpointedProject(dir);
    await new Checkpoints(p, { clock: () => T0 }).checkpoint({ name: 'Before curation', description: 'the import', idempotencyKey: testUuid('cp') });
    const facade = createFacade({ mode: 'library' });
    try {
      const { project } = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: dir })) as { project: string };
      const page = unwrapEnvelope(await facade.dispatcher.dispatch('history.list', { project, name: 'curation' })) as HistoryPage;
      expect(page.entries.map((e) => [e.generation_uuid, e.checkpoints.map((c) => [c.name, c.description])])).toEqual([[gens[2], [['Before curation', 'the import']]]]);
      expect(page.total_records).toBe(3);
    } finally {
      await facade.close();
    }
  });
});
