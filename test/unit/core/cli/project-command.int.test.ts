import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { openProject } from '../../../../core/project/index';
import { configurationDocumentBytes } from '../../../../core/participants/workspace-bytes';
import { DEFAULT_CONFIGURATION } from '../../../../core/participants/document-values';
import { putEdges, putNodes } from '../../../support/project-fixtures';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-cli-project-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

/**
 * A configuration document (workspace_configuration@1) for the demo at `dir`: it repeats the mode of the
 * ontology CURRENT has adopted (rule workspace.configuration.ontology_mode_matches; the demo adopts one).
 */
async function configFor(dir: string, modelId: string): Promise<Uint8Array> {
  const shown = await gf('config', 'show', '--project', dir, '--json');
  expect(shown.code).toBe(0);
  const { ontology_mode } = JSON.parse(shown.out) as { ontology_mode: typeof DEFAULT_CONFIGURATION.ontology_mode };
  expect(ontology_mode).not.toBe('none');
  return configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, ontology_mode, embedding_configuration: { model_id: modelId } });
}

function file(name: string, bytes: Uint8Array): string {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, bytes);
  return f;
}

describe('gf publish', () => {
  it('publishes, replaces and removes participants; refuses bad input with a code', async () => {
    const dir = path.join(tmp, 'p');
    expect((await gf('demo', 'create', dir, '--records', '50', '--seed', '9')).code).toBe(0);
    const nodes = putNodes(4, 'cli');
    const edges = putEdges(3, 'cli');
    if (nodes.kind !== 'put' || edges.kind !== 'put') throw new Error('puts');
    const cfg = await configFor(dir, 'cli');
    const before = (await openProject(dir)).current()?.generationUuid;
    const r = await gf('publish', '--project', dir, '--family', 'workspace/configuration', '--file', file('cfg.json', cfg));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { generation_uuid: string; parent_generation_uuid: string };
    expect(out.parent_generation_uuid).toBe(before);
    const p = await openProject(dir);
    expect(p.current()?.generationUuid).toBe(out.generation_uuid);
    const dangling = await gf('publish', '--project', dir, '--family', 'graph/edge', '--file', file('edges.arrow', edges.bytes));
    expect(dangling.code).toBe(1);
    expect(dangling.err).toContain('GF_VALIDATION');
    expect(dangling.err).toContain('committed: false');
    expect(p.current()?.generationUuid).toBe(out.generation_uuid);
    const removed = await gf('publish', '--project', dir, '--remove', 'knowledge/evidence_link');
    expect(removed.code).toBe(0);
    const unknown = await gf('publish', '--project', dir, '--remove', '../../etc');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('GF_VALIDATION');
    expect(unknown.err).not.toContain('etc');
    expect((await gf('publish', '--project', path.join(tmp, 'nowhere'), '--remove', 'graph/edge')).err).toContain('GF_NO_WORKSPACE');
  });

  it('keeps every checkpointed generation through repeated publishes (cleanup honours the registry pins)', async () => {
    const dir = path.join(tmp, 'pins');
    expect((await gf('demo', 'create', dir, '--records', '50', '--seed', '3')).code).toBe(0);
    const before = new Checkpoints(await openCheckpointedProject(dir)).listCheckpoints({ limit: 100 });
    expect(before.rows.length).toBeGreaterThan(2);
    for (let i = 0; i < 4; i++) {
      const cfg = await configFor(dir, `pins-${i}`);
      expect((await gf('publish', '--project', dir, '--family', 'workspace/configuration', '--file', file(`pins-${i}.json`, cfg))).code).toBe(0);
    }
    const cps = new Checkpoints(await openCheckpointedProject(dir));
    for (const row of before.rows) {
      const view = await cps.openCheckpoint(row.name);
      expect(view.generationUuid).toBe(row.generation_uuid);
      view.release();
    }
  });
});
