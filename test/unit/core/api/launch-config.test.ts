// The one launch configuration: arguments over the environment, read once; the
// facade built from it reads no environment of its own; secrets never echoed.
import { describe, expect, it } from 'vitest';
import { createFacade } from '../../../../core/api/facade';
import { desktopLaunchConfig, launchFacadeOptions, readLaunchConfig } from '../../../../core/api/launch-config';
import type { JsonResults } from '../../../../core/contract/operations';
import { unwrapEnvelope } from '../../../../core/contract/wire';

const PG = 'postgres://gf:s3cret-word@db.example:5432/ledgers';
const LG = 'postgresql://lg:other-s3cret@db.example:5432/threads';

describe('readLaunchConfig', () => {
  it('takes the chain store from the option, else the environment, and shows it redacted', () => {
    const fromEnv = readLaunchConfig({}, { GF_CHAIN_POSTGRES_URL: PG, GF_CONFIG_DIR: '/cfg' });
    expect(fromEnv.chain).toEqual({ kind: 'postgres', url: PG });
    expect(fromEnv.chainRedacted).not.toContain('s3cret-word');
    expect(fromEnv.configDir).toBe('/cfg');
    const other = 'postgres://x:y@other.example/db';
    expect(readLaunchConfig({ chainPostgresUrl: other }, { GF_CHAIN_POSTGRES_URL: PG }).chain).toEqual({ kind: 'postgres', url: other });
    expect(readLaunchConfig({}, {}).chain).toEqual({ kind: 'sqlite' });
    expect(readLaunchConfig({ sharedLedgers: false }, { GF_CHAIN_POSTGRES_URL: 'not a url s3cret-word' }).chain).toEqual({ kind: 'sqlite' });
  });

  it('refuses a malformed chain URL with GF_VALIDATION, never echoing it', () => {
    let caught: unknown;
    try {
      readLaunchConfig({}, { GF_CHAIN_POSTGRES_URL: 'mysql://gf:s3cret-word@db/x' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'GF_VALIDATION' });
    expect(String((caught as Error).message)).not.toContain('s3cret-word');
  });

  it("takes Agent threads' Postgres URL from the argument, else the environment; an empty argument means none", () => {
    expect(readLaunchConfig({}, { GF_LANGGRAPH_POSTGRES_URL: LG }).langgraphPostgresUrl).toBe(LG);
    expect(readLaunchConfig({ langgraphPostgresUrl: '' }, { GF_LANGGRAPH_POSTGRES_URL: LG }).langgraphPostgresUrl).toBeUndefined();
    expect(readLaunchConfig({}, { GF_LANGGRAPH_POSTGRES_URL: '' }).langgraphPostgresUrl).toBeUndefined();
  });

  it('the desktop launch opens --project, else GF_PROJECT, as an absolute path', () => {
    expect(desktopLaunchConfig(['electron', '.', '--project', '/w/a'], { GF_PROJECT: '/w/b' }).project).toBe('/w/a');
    expect(desktopLaunchConfig(['electron', '.'], { GF_PROJECT: '/w/b' }).project).toBe('/w/b');
    expect(desktopLaunchConfig(['electron', '.'], {}).project).toBeNull();
    expect(desktopLaunchConfig(['electron', '.', '--project', 'rel'], {}).project).toBe(`${process.cwd()}/rel`);
  });
});

describe('the facade reads its launch configuration, not the environment', () => {
  async function postgresOffered(options: Parameters<typeof createFacade>[0]): Promise<boolean> {
    const facade = createFacade(options);
    try {
      return (unwrapEnvelope(await facade.dispatcher.dispatch('app.session', {})) as JsonResults['app.session']).threads.postgres;
    } finally {
      await facade.close();
    }
  }

  it("offers Agent threads' Postgres source only when its launch configuration names one", async () => {
    const saved = process.env['GF_LANGGRAPH_POSTGRES_URL'];
    process.env['GF_LANGGRAPH_POSTGRES_URL'] = LG;
    try {
      expect(await postgresOffered({ mode: 'library' })).toBe(false);
      expect(await postgresOffered(launchFacadeOptions(readLaunchConfig({}, process.env), 'library'))).toBe(true);
      expect(await postgresOffered(launchFacadeOptions(readLaunchConfig({ langgraphPostgresUrl: '' }, process.env), 'library'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env['GF_LANGGRAPH_POSTGRES_URL'];
      else process.env['GF_LANGGRAPH_POSTGRES_URL'] = saved;
    }
  });
});
