import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import { readLaunchConfig, serve } from '../../../../core/cli/browser-host';
import { buildApiWorkspace } from '../../../support/api-workspace';

const root = mkdtempSync(join(tmpdir(), 'gf-serve-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

describe('gf serve', () => {
  it('documents itself with an example and refuses a bad port as a usage error', async () => {
    const help = await run('serve', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Example:');
    expect(help.out).toContain('--project <dir>');
    expect((await run('serve', '--port', 'http')).code).toBe(2);
    expect((await run('serve', '--port', '70000')).code).toBe(2);
  });

  it('fails with the GF code (exit 1) when the project cannot be opened, before serving anything', async () => {
    const r = await run('serve', '--project', join(root, 'missing'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^GF_NO_WORKSPACE: No workspace at .*missing \(no FORMAT file\)/);
    expect(r.out).toBe('');
  });

  it('serves the launch project on 127.0.0.1 behind the token', async () => {
    const ws = await buildApiWorkspace(join(root, 'ws'));
    const { bridge, stop } = await serve({ launch: readLaunchConfig({ project: ws.dir, sharedLedgers: false }, process.env), rendererDir: join(root, 'no-renderer') });
    try {
      expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
      const res = await fetch(`${bridge.origin}/api/app.session`, { method: 'POST', headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' }, body: '{}' });
      const env = (await res.json()) as { ok: boolean; value: { project: { label: string }; mode: string } };
      expect(env.value.mode).toBe('browser');
      expect(env.value.project.label).toBe('ws');
      // No session cookie and no token: refused before the (missing) renderer is even looked up.
      expect((await fetch(`${bridge.origin}/`)).status).toBe(401);
    } finally {
      await stop();
    }
  });
});
