// The app user's identity lives in the app's configuration directory: created
// once, stable across processes, renamed without a new UUID; names given on
// the CLI are remembered under a UUID derived from the name; bad input is
// refused with GF_VALIDATION and a damaged file is never overwritten.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACTORS_FILE, ActorStore, appConfigDir, derivedActorUuid } from '../../../../core/actor/actor-store';
import { createFacade } from '../../../../core/api/facade';
import { UUID_PATTERN } from '../../../../core/contract/operations';
import { caller, codeOf } from '../langgraph/threads-support';

const root = mkdtempSync(join(tmpdir(), 'gf-actor-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(root, `config${(n += 1)}`);

describe('ActorStore', () => {
  it('creates the identity once (a random UUID, a display name) and every later store on the directory reads the same one', () => {
    const dir = fresh();
    const a = new ActorStore(dir).show();
    expect(a.self.actor_uuid).toMatch(UUID_PATTERN);
    expect(a.self.display_name.length).toBeGreaterThan(0);
    expect(new ActorStore(dir).show().self).toEqual(a.self);
    expect(new ActorStore(fresh()).show().self.actor_uuid).not.toBe(a.self.actor_uuid);
    // Private to the user, and no temporary file left beside it.
    expect(statSync(join(dir, ACTORS_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([ACTORS_FILE]);
  });

  it('a rename keeps the actor UUID and trims the name', () => {
    const dir = fresh();
    const before = new ActorStore(dir).show().self;
    expect(new ActorStore(dir).rename('  Ada Lovelace ')).toEqual({ actor_uuid: before.actor_uuid, display_name: 'Ada Lovelace' });
    expect(new ActorStore(dir).show().self).toEqual({ actor_uuid: before.actor_uuid, display_name: 'Ada Lovelace' });
  });

  it('resolves a name to the UUID derived from it (the same everywhere) and remembers it; a UUID as is, with its name when known', () => {
    const dir = fresh();
    const s = new ActorStore(dir, () => 1000);
    const ops = s.resolve(' ops bot ');
    // Recomputed independently: SHA-256 of the prefix and the name, version 8 and variant bits set.
    const h = createHash('sha256').update('checkpoint-studio actor\u0000ops bot').digest('hex');
    const v8 = `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
    expect(ops).toEqual({ actor_uuid: v8, display_name: 'ops bot' });
    expect(derivedActorUuid('ops bot')).toBe(v8);
    expect(new ActorStore(fresh()).resolve('ops bot').actor_uuid).toBe(v8);
    expect(s.show().known).toContainEqual(ops);
    expect(s.resolve(v8.toUpperCase())).toEqual(ops);
    expect(s.resolve('018f0f4e-7b8c-7000-8000-000000000001')).toEqual({ actor_uuid: '018f0f4e-7b8c-7000-8000-000000000001', display_name: null });
    expect(s.resolve(s.show().self.actor_uuid).display_name).toBe(s.show().self.display_name);
  });

  it('a damaged file is GF_IO, never replaced by a new identity', () => {
    const dir = fresh();
    new ActorStore(dir).show();
    writeFileSync(join(dir, ACTORS_FILE), '{"version":1,"self":{"actor_uuid":"nope"');
    let code: string | undefined;
    try {
      new ActorStore(dir).show();
    } catch (e) {
      code = (e as { code?: string }).code;
    }
    expect(code).toBe('GF_IO');
    expect(readFileSync(join(dir, ACTORS_FILE), 'utf8')).toBe('{"version":1,"self":{"actor_uuid":"nope"');
  });

  it('the directory: GF_CONFIG_DIR when absolute, else XDG_CONFIG_HOME, else ~/.config; never a relative path', () => {
    expect(appConfigDir({ GF_CONFIG_DIR: '/x/y' })).toBe('/x/y');
    expect(appConfigDir({ GF_CONFIG_DIR: 'relative', XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/checkpoint-studio');
    expect(appConfigDir({})).toMatch(/\/\.config\/checkpoint-studio$/);
  });
});

describe('actor.* through the dispatcher', () => {
  it('show, rename and resolve; a bad display name is GF_VALIDATION with committed: false and the file unchanged', async () => {
    const dir = fresh();
    const facade = createFacade({ mode: 'library', configDir: dir });
    const call = caller(facade);
    try {
      const me = (await call('actor.show', {})).self;
      expect((await call('actor.rename', { display_name: 'Grace' })).self).toEqual({ actor_uuid: me.actor_uuid, display_name: 'Grace' });
      const bytes = readFileSync(join(dir, ACTORS_FILE));
      for (const bad of ['', '   ', 'a\u0007b', 'x'.repeat(65)]) {
        const env = await facade.dispatcher.dispatch('actor.rename', { display_name: bad });
        expect(env.ok ? 'ok' : [env.error.code, env.error.committed]).toEqual(['GF_VALIDATION', false]);
      }
      expect(await codeOf(call('actor.resolve', { actor: 'tab\there' }))).toBe('GF_VALIDATION');
      expect(readFileSync(join(dir, ACTORS_FILE))).toEqual(bytes);
      expect((await call('actor.resolve', { actor: 'Grace' })).display_name).toBe('Grace');
    } finally {
      await facade.close();
    }
  });
});
