// Issue 32 item 8 (S5-01): two fences about LangGraph's own tables.
//  - B3 schema ownership: no DDL of this project names a table the installed LangGraph savers create
//    (their schema is theirs; the project only calls their setup/migrations).
//  - Upstream schema: the installed savers' migrations / set-up produce exactly the pinned schema, so an
//    upstream change fails here even when the package.json literals did not change (a re-published or
//    patched package, a lockfile drift), not only when they do (version-pins.test.ts).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const REPO = resolve(import.meta.dirname, '../../../..');
const PIN = JSON.parse(readFileSync(join(REPO, 'test/fixtures/langgraph/upstream-schema.json'), 'utf8')) as {
  postgres: { version: string; migrations: number; sha256: string };
  sqlite: { version: string; objects: string[]; sha256: string };
};

/** The installed Postgres saver's migrations, as it runs them (its own `getMigrations`, for one schema). */
async function postgresMigrations(schema: string): Promise<string[]> {
  const dist = dirname(require.resolve('@langchain/langgraph-checkpoint-postgres'));
  const mod = (await import(pathToFileURL(join(dist, 'migrations.js')).href)) as { getMigrations: (schema: string) => string[] };
  return mod.getMigrations(schema);
}

/** The installed SQLite saver's schema: what its own `setup()` creates in an empty database. */
async function sqliteSchema(): Promise<{ type: string; name: string; sql: string | null }[]> {
  const db = new Database(':memory:');
  try {
    // Any read sets the saver up first (its `setup` is protected): the schema is what that creates.
    await new SqliteSaver(db).getTuple({ configurable: { thread_id: 'gf-schema-pin' } });
    return db.prepare<[], { type: string; name: string; sql: string | null }>('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all();
  } finally {
    db.close();
  }
}

const sha256 = (v: unknown): string => createHash('sha256').update(JSON.stringify(v)).digest('hex');

/** Table names a DDL text creates (`CREATE TABLE [IF NOT EXISTS] [schema.]name`), schema and quotes stripped. */
export function createdTables(sql: string): string[] {
  return [...sql.matchAll(/CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)/gi)].map((m) => lastName(m[1] as string));
}

function lastName(ref: string): string {
  return ref.replace(/\$\{[^}]*\}/g, 'x').split('.').at(-1)?.replace(/["`']/g, '').toLowerCase() ?? '';
}

/**
 * The DDL statements of `source` that touch one of `tables`: CREATE/ALTER/DROP/TRUNCATE of a table, index,
 * view or trigger named so, or an index or trigger created ON it. Returns each offending statement's start.
 */
export function ddlNaming(source: string, tables: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const ddl = /\b(?:CREATE|ALTER|DROP)\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([^\s(;`']+)(?:[^;`]*?\bON\s+([^\s(;`']+))?|\bTRUNCATE\s+(?:TABLE\s+)?([^\s(;`']+)/gi;
  for (const m of source.matchAll(ddl)) {
    const names = [m[1], m[2], m[3]].filter((n): n is string => n !== undefined).map(lastName);
    if (names.some((n) => tables.has(n))) out.push(m[0].slice(0, 120));
  }
  return out;
}

/** Every TypeScript/JavaScript source of the project (what ships: core, electron, renderer, scripts, bin). */
function projectSources(): string[] {
  const out: string[] = [];
  for (const top of ['core', 'electron', 'renderer', 'scripts', 'bin']) {
    for (const f of readdirSync(join(REPO, top), { recursive: true }) as string[]) {
      if (/\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/.test(f) && !f.split(/[\\/]/).includes('node_modules')) out.push(join(REPO, top, f));
    }
  }
  return out;
}

describe('LangGraph schema fences (S5-01)', () => {
  it('upstream: the installed Postgres saver runs exactly the pinned migrations', async () => {
    expect((require('@langchain/langgraph-checkpoint-postgres/package.json') as { version: string }).version).toBe(PIN.postgres.version);
    const migrations = await postgresMigrations('gf_pin');
    expect(migrations).toHaveLength(PIN.postgres.migrations);
    expect(sha256(migrations), 'the installed saver migrates differently from the pinned schema: review the change, then re-pin').toBe(PIN.postgres.sha256);
  });

  it('upstream: the installed SQLite saver sets up exactly the pinned schema', async () => {
    expect((require('@langchain/langgraph-checkpoint-sqlite/package.json') as { version: string }).version).toBe(PIN.sqlite.version);
    const schema = await sqliteSchema();
    expect(schema.map((r) => r.name).sort()).toEqual(PIN.sqlite.objects);
    expect(sha256(schema), 'the installed saver sets up a different schema from the pinned one: review the change, then re-pin').toBe(PIN.sqlite.sha256);
  });

  it('the upstream check can fail: one changed character of a migration changes the digest', async () => {
    const migrations = await postgresMigrations('gf_pin');
    const altered = migrations.map((m, i) => (i === 1 ? m.replace('TEXT', 'TEXT ') : m));
    expect(sha256(altered)).not.toBe(PIN.postgres.sha256);
  });

  it("B3 schema ownership: no DDL in the project's sources names a table the LangGraph savers create", async () => {
    const tables = new Set([...(await postgresMigrations('public')).flatMap(createdTables), ...(await sqliteSchema()).filter((r) => r.type === 'table').map((r) => r.name)]);
    expect([...tables].sort()).toEqual(['checkpoint_blobs', 'checkpoint_migrations', 'checkpoint_writes', 'checkpoints', 'writes']);
    const found = projectSources().flatMap((f) => ddlNaming(readFileSync(f, 'utf8'), tables).map((s) => `${relative(REPO, f)}: ${s}`));
    expect(found).toEqual([]);
  });

  it('the fence can fail: it finds such DDL in any spelling, and leaves the project\'s own tables alone', () => {
    const tables = new Set(['checkpoints', 'checkpoint_writes', 'writes']);
    expect(ddlNaming('db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (x)`)', tables)).toHaveLength(1);
    expect(ddlNaming('await q(`alter table "${schema}".checkpoint_writes add column y int`)', tables)).toHaveLength(1);
    expect(ddlNaming("db.exec('CREATE INDEX ix_w ON writes(thread_id)')", tables)).toHaveLength(1);
    expect(ddlNaming('DROP TABLE IF EXISTS public.checkpoints;', tables)).toHaveLength(1);
    expect(ddlNaming('TRUNCATE checkpoint_writes', tables)).toHaveLength(1);
    expect(ddlNaming('CREATE TABLE IF NOT EXISTS checkpoint_chain (x); CREATE UNIQUE INDEX ix ON checkpoint_chain(next_head)', tables)).toEqual([]);
  });
});
