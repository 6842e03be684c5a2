import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { GfError } from '../../../../../core/errors';
import { addChainPostgresOption } from '../../../../../core/cli/chain-option';
import {
  CHAIN_POSTGRES_URL_ENV,
  redactConnectionString,
  resolveChainPostgresTarget,
} from '../../../../../core/chain/postgres/postgres-config';

const run = promisify(execFile);

describe('Postgres chain store configuration', () => {
  it('F1: loading the core (chain port, adapters, Postgres config, CLI) loads no Postgres driver module; pointing at Postgres does', async () => {
    const child = join(import.meta.dirname, 'postgres-lazy.child.ts');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', timeout: 60_000 });
    const out = JSON.parse(stdout) as { before: string[]; after: string[]; opened: string };
    expect(out.before).toEqual([]);
    // Positive control: the check does see the driver once it is really loaded.
    expect(out.after.some((m) => /node_modules[\\/]pg[\\/]lib[\\/]index\.js$/.test(m))).toBe(true);
    expect(out.opened).toBe('ECONNREFUSED');
  }, 90_000);

  it('redacts the password and secret parameters, and never echoes a malformed string', () => {
    expect(redactConnectionString('postgres://alice:s3cr%40t@db.example:5433/ledger?sslmode=require')).toBe('postgres://alice:[REDACTED]@db.example:5433/ledger?sslmode=require');
    expect(redactConnectionString('postgresql://bob@db/x?password=hunter2&application_name=gf')).toBe('postgresql://bob@db/x?password=[REDACTED]&application_name=gf');
    expect(redactConnectionString('postgres://u:p@h/d?sslkey=/home/u/.key&sslpassword=pw')).not.toMatch(/\.key|=pw/);
    expect(redactConnectionString('mysql://root:toor@h/d')).toBe('[REDACTED]');
    expect(redactConnectionString('not a url with password hunter2')).toBe('[REDACTED]');
  });

  it('takes the option over the environment, ignores empty values, and rejects malformed strings with GF_VALIDATION without echoing them', () => {
    const env = { [CHAIN_POSTGRES_URL_ENV]: 'postgres://env:envpw@h1/d' };
    expect(resolveChainPostgresTarget({ env: {} })).toBeNull();
    expect(resolveChainPostgresTarget({ option: '', env: { [CHAIN_POSTGRES_URL_ENV]: '' } })).toBeNull();
    const fromEnv = resolveChainPostgresTarget({ env });
    expect([fromEnv?.source, fromEnv?.url, fromEnv?.redacted]).toEqual(['env', 'postgres://env:envpw@h1/d', 'postgres://env:[REDACTED]@h1/d']);
    const fromOption = resolveChainPostgresTarget({ option: 'postgresql://opt:optpw@h2:6000/e', env });
    expect([fromOption?.source, fromOption?.redacted]).toEqual(['option', 'postgresql://opt:[REDACTED]@h2:6000/e']);
    for (const bad of ['http://u:hunter2@h/d', 'hunter2', 'postgres://']) {
      let error: unknown;
      try {
        resolveChainPostgresTarget({ option: bad });
      } catch (e) {
        error = e;
      }
      expect((error as GfError).code).toBe('GF_VALIDATION');
      expect((error as GfError).message).not.toContain('hunter2');
      expect(JSON.stringify((error as GfError).details)).not.toContain('hunter2');
    }
  });

  it('adds --chain-postgres-url to a CLI command', () => {
    const cmd = addChainPostgresOption(new Command('verify').exitOverride());
    cmd.parse(['node', 'verify', '--chain-postgres-url', 'postgres://u:p@h/d']);
    expect(cmd.opts()).toEqual({ chainPostgresUrl: 'postgres://u:p@h/d' });
  });
});
