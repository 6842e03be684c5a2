import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import type { HistoryPage, RetentionPolicy } from '../../../../core/contract/history';
import type { JsonResults } from '../../../../core/contract/operations';
import { createProject, readLineage } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { gf } from '../../../support/cli-run';
import { putConfig, putNodes, testUuid } from '../../../support/project-fixtures';
import { counterClock, tempDir } from '../revert/revert-support';

// `gf log`, `gf retention`, the revert preview's prunable list, same-content
// reverts, and the CLI's error wording (issue 19).

const tmp = tempDir('gf-history-cli-');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** g1 (checkpoint "Before curation"), g2, g3: CURRENT is g3. */
async function workspace(label: string): Promise<{ dir: string; gens: string[] }> {
  const dir = path.join(tmp, label);
  const p = await createProject(dir, { catalog: registryCatalog });
  const gens: string[] = [];
  gens.push((await p.publish({ parent: null, changes: [putNodes(3, 'a'), putConfig('a')] })).generationUuid);
  const project = await openCheckpointedProject(dir);
  await new Checkpoints(project, { clock: counterClock() }).checkpoint({ name: 'Before curation', description: 'raw import', idempotencyKey: testUuid(`cp-${label}`) });
  gens.push((await project.publish({ parent: gens[0] as string, changes: [putNodes(5, 'a')] })).generationUuid);
  gens.push((await project.publish({ parent: gens[1] as string, changes: [putConfig('c')] })).generationUuid);
  return { dir, gens };
}

describe('gf retention, revert preview, gf log', () => {
  it('with a window of 1 the preview names what becomes prunable; after cleanup gf log lists it as pruned with the revert reason', async () => {
    const { dir, gens } = await workspace('window');
    const set = await gf('retention', 'set', '--keep', '1', '--project', dir);
    expect([set.code, set.out]).toEqual([0, 'retention now keeps 1 ancestor of CURRENT (was 2); applied at the next cleanup\n']);
    const shown = JSON.parse((await gf('retention', 'show', '--project', dir, '--json')).out) as RetentionPolicy;
    expect(shown).toMatchObject({ retain_ancestors: 1, source: 'workspace', current_generation_uuid: gens[2], ancestors: [gens[1]], checkpointed: [gens[0]], leased: [] });
    expect(fs.readFileSync(path.join(dir, 'history/retention.json'), 'utf8')).toBe('{"format":"graphforge-retention","format_version":1,"retain_ancestors":1}\n');

    // Reverting to g1 publishes g4 (parent g3): the window keeps g3, so g2 (unnamed) becomes prunable.
    const preview = JSON.parse((await gf('checkpoint', 'revert', 'Before curation', '--preview', '--project', dir, '--json')).out) as JsonResults['revert.preview'];
    expect(preview).toMatchObject({ same_content: false, retain_ancestors: 1 });
    expect(preview.prunable.map((g) => [g.generation_uuid, g.seq, g.kind])).toEqual([[gens[1], 2, 'publication']]);
    const text = (await gf('checkpoint', 'revert', 'Before curation', '--preview', '--project', dir)).out;
    expect(text).toContain(`becomes prunable (no checkpoint names it; create one on it first to keep it):\n  ${gens[1]}`);

    const r = await gf('checkpoint', 'revert', 'Before curation', '--project', dir, '--reason', '  the curation dropped 40 nodes  ');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\nreason: the curation dropped 40 nodes\n$/);
    expect(fs.existsSync(path.join(dir, 'generations', gens[1] as string))).toBe(false);

    const log = JSON.parse((await gf('log', '--project', dir, '--json')).out) as HistoryPage;
    expect(log.entries.map((e) => [e.seq, e.kind, e.status])).toEqual([
      [4, 'revert', 'current'],
      [3, 'publication', 'retained'],
      [2, 'publication', 'pruned'],
      [1, 'first', 'retained'],
    ]);
    expect(log.entries[0]).toMatchObject({ reason: 'the curation dropped 40 nodes', restored_checkpoint_name: 'Before curation', parent_generation_uuid: gens[2] });
    expect(log.entries[2]?.published_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const oneline = (await gf('log', '--project', dir)).out.split('\n');
    expect(oneline[0]).toMatch(/^[0-9a-f]{8} \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ revert current revert to "Before curation": the curation dropped 40 nodes \(\d+ participants? changed\)$/);
    expect(oneline[2]).toContain(`${(gens[1] as string).slice(0, 8)} `);
    expect(oneline[2]).toContain(' publication pruned ');
    expect(oneline[3]).toContain('[Before curation] first generation — raw import');
    const csv = (await gf('log', '--project', dir, '--csv', '--kind', 'revert')).out.trim().split('\n');
    expect(csv[0]).toBe('seq,generation_uuid,parent_generation_uuid,published_at,actor,actor_name,kind,status,checkpoints,restored_checkpoint_uuid,restored_checkpoint_name,reason,participants_changed,manifest_sha256');
    expect(csv).toHaveLength(2);
  });

  it('a revert to content CURRENT already has is flagged by the preview and publishes (ADR-0014): one revert generation, its restoration record the only change', async () => {
    const { dir, gens } = await workspace('same');
    const project = await openCheckpointedProject(dir);
    await new Checkpoints(project, { clock: counterClock() }).checkpoint({ name: 'Now', idempotencyKey: testUuid('cp-now') });
    const preview = JSON.parse((await gf('checkpoint', 'revert', 'Now', '--preview', '--project', dir, '--json')).out) as JsonResults['revert.preview'];
    expect(preview.same_content).toBe(true);
    // Records aside from restoration records, nothing differs (the preview's list says so too).
    expect(preview.changes.filter((c) => c.change_kind !== 'unchanged' && c.record_family_id !== 'restoration_transition')).toEqual([]);
    const text = (await gf('checkpoint', 'revert', 'Now', '--preview', '--project', dir)).out;
    expect(text).toContain('the revert still publishes a generation, which differs from CURRENT only by its restoration record');
    expect(text).not.toContain('change nothing');
    // The frozen request fields only: the old confirmation flag is no option.
    const flagged = await gf('checkpoint', 'revert', 'Now', '--project', dir, '--reason', 'again', '--confirm-same-content');
    expect(flagged.code).toBe(2);
    expect(readLineage(dir).records).toHaveLength(3);
    const reverted = await gf('checkpoint', 'revert', 'Now', '--project', dir, '--reason', 'again');
    expect([reverted.code, reverted.err]).toEqual([0, expect.not.stringContaining('GF_')]);
    expect(readLineage(dir).records.map((r) => r.kind)).toEqual(['first', 'publication', 'publication', 'revert']);
    expect(project.current()?.generationUuid).not.toBe(gens[2]);
  });
});

describe('gf error wording', () => {
  it('a missing folder, an empty folder and a file: "No workspace at PATH (no FORMAT file)", GF_NO_WORKSPACE', async () => {
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    const file = path.join(tmp, 'a-file.txt');
    fs.writeFileSync(file, 'x');
    for (const target of [path.join(tmp, 'missing'), empty, file]) {
      const r = await gf('log', '--project', target);
      expect({ target, code: r.code, err: r.err }).toEqual({ target, code: 1, err: `GF_NO_WORKSPACE: No workspace at ${target} (no FORMAT file) (committed: false)\n` });
    }
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it('an unknown checkpoint name is echoed with the valid names; an unknown --kind lists the valid kinds', async () => {
    const { dir } = await workspace('names');
    const r = await gf('checkpoint', 'show', 'Befor curation', '--project', dir);
    expect([r.code, r.err]).toEqual([1, 'GF_CHECKPOINT_NOT_FOUND: no checkpoint named "Befor curation" (checkpoints: "Before curation")\n']);
    const diff = await gf('checkpoint', 'diff', 'CURRENT', 'nope', '--project', dir);
    expect(diff.err).toContain('no checkpoint named "nope" (checkpoints: "Before curation")');
    const kind = await gf('log', '--kind', 'merge', '--project', dir);
    expect(kind.code).toBe(2);
    expect(kind.err).toContain("'merge'");
    expect(kind.err).toContain('publication, revert, first');
  });

  it('a failed write never prints a replay hint; a successful one prints its generated key', async () => {
    const { dir } = await workspace('replay');
    const ok = await gf('checkpoint', 'create', 'Second', '--project', dir);
    expect(ok.err).toMatch(/^idempotency key: [0-9a-f-]{36}\n$/);
    const failed = await gf('checkpoint', 'create', 'Second', '--project', dir);
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/^GF_CHECKPOINT_EXISTS/);
    expect(failed.err).not.toContain('idempotency');
    const badRevert = await gf('checkpoint', 'revert', 'Nope', '--project', dir, '--reason', 'x');
    expect(badRevert.err).not.toContain('replay');
  });
});
