import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { gf } from '../../../support/cli-run';
import { simpleEvent } from '../chain/conformance/support';

// Defect 7 of issue 23: `--expect-head` works with `--all`, given a file of expected heads.

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-heads-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('defect 7: --expect-head with --all', () => {
  it('passes when every listed tail matches, fails with checkpoint_head_unexpected on a truncated (older) head, refuses a malformed file', async () => {
    const dir = path.join(base, 'ws');
    const store = new SqliteChainStore(path.join(dir, 'chain'));
    const a1 = await store.append(simpleEvent('wf-a'));
    const a2 = await store.append(simpleEvent('wf-a', { prior: 'plan_ready', next: 'patch_applied' }));
    const b1 = await store.append(simpleEvent('wf-b'));
    await store.close();
    const good = path.join(base, 'good.txt');
    fs.writeFileSync(good, `# recorded heads\nwf-a ${a2}\nwf-b ${b1}\n`);
    const ok = await gf('chain', 'verify', '--all', '--expect-head', good, '--project', dir);
    expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: '' });
    const stale = path.join(base, 'stale.txt');
    fs.writeFileSync(stale, `wf-a ${a1}\nwf-b ${b1}\n`);
    const bad = await gf('chain', 'verify', '--all', '--expect-head', stale, '--project', dir);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('workflows.checkpoint_head_unexpected');
    const junk = path.join(base, 'junk.txt');
    fs.writeFileSync(junk, 'wf-a not-a-head\n');
    const refused = await gf('chain', 'verify', '--all', '--expect-head', junk, '--project', dir);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^GF_VALIDATION: expected heads/);
  });
});
