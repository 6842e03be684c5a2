import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTransitionEvent, type TransitionEvent } from '../../../../../core/chain/event';
import { CHECKPOINT_CHAIN_SCHEMA, workflowDirName } from '../../../../../core/chain/sqlite/sqlite-schema';
import { SqliteChainStore } from '../../../../../core/chain/sqlite/sqlite-store';
import { tamperSqliteRow } from '../../../../../core/chain/sqlite/sqlite-tamper';
import { verify } from '../../../../../core/chain/verify';
import { SECRET_SAMPLES } from '../conformance/secret-samples';
import { collect, simpleEvent } from '../conformance/support';
import { fixtureText } from '../golden';

let root: string;
let stores: SqliteChainStore[];

const open = (clock?: () => Date): SqliteChainStore => {
  const s = new SqliteChainStore(root, clock === undefined ? {} : { clock });
  stores.push(s);
  return s;
};

const rejection = async (p: Promise<unknown>): Promise<{ errorId?: string; code?: string; message: string }> =>
  p.then(
    () => ({ message: 'resolved' }),
    (e: unknown) => e as { errorId?: string; code?: string; message: string },
  );

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gf-chain-sqlite-'));
  stores = [];
});

afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(root, { recursive: true, force: true });
});

describe('SqliteChainStore', () => {
  it('AC-5 the checkpoint_chain schema is the seed schema byte for byte (golden), and is what the database holds', async () => {
    expect(CHECKPOINT_CHAIN_SCHEMA).toBe(fixtureText('sqlite-schema.sql'));
    const s = open();
    await s.append(simpleEvent('wf-schema'));
    const db = new Database(s.databasePath('wf-schema'), { readonly: true });
    const sql = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE name IN ('checkpoint_chain', 'ix_chain_next_head') ORDER BY name").all();
    db.close();
    const [table, index] = CHECKPOINT_CHAIN_SCHEMA.split(';\n');
    expect(sql).toEqual([
      { name: 'checkpoint_chain', sql: (table ?? '').replace('CREATE TABLE IF NOT EXISTS', 'CREATE TABLE') },
      { name: 'ix_chain_next_head', sql: (index ?? '').replace('CREATE UNIQUE INDEX IF NOT EXISTS', 'CREATE UNIQUE INDEX') },
    ]);
  });

  it('AC-5 connections run WAL, synchronous=FULL and busy_timeout >= 5000', () => {
    const p = open().connectionPragmas('wf-pragmas');
    expect(p.journal_mode).toBe('wal');
    expect(p.synchronous).toBe(2);
    expect(p.busy_timeout).toBeGreaterThanOrEqual(5000);
  });

  it('AC-5 one database per workflow under a derived directory name, never the raw id', async () => {
    const s = open();
    const ids = ['wf:alpha.1', 'wf-beta', 'Gamma_2'];
    for (const id of ids) await s.append(simpleEvent(id));
    const dirs = readdirSync(root).sort();
    expect(dirs).toEqual(ids.map(workflowDirName).sort());
    for (const d of dirs) {
      expect(d).toMatch(/^[0-9a-f]{32}$/);
      expect(existsSync(join(root, d, 'checkpoints.sqlite'))).toBe(true);
    }
    for (const id of ids) expect(dirs.some((d) => d.includes(id))).toBe(false);
    expect(await s.listWorkflows()).toEqual([...ids].sort());
    // Reads of an unknown workflow create nothing.
    expect(await s.tailChainHead('wf-unknown')).toMatch(/^blake3:0{64}$/);
    expect(await collect(s.readAllForWorkflow('wf-unknown'))).toEqual([]);
    expect(readdirSync(root).length).toBe(3);
  });

  it('AC-10 the 64 KiB cap is a store rule (the event type accepts large events) and the error carries no values', async () => {
    const big = buildTransitionEvent({
      workflow_id: 'wf-big',
      prior_state_id: 'needs_plan',
      next_state_id: 'plan_ready',
      triggering_outcome: { kind: 'k', detail: `UNIQUE-MARKER ${'x'.repeat(70_000)}` },
    });
    const err = await rejection(open().append(big));
    expect(err.errorId).toBe('workflows.checkpoint_payload_too_large');
    expect(err.message).not.toContain('UNIQUE-MARKER');
    expect(existsSync(join(root, workflowDirName('wf-big')))).toBe(false);
  });

  it('AC-11 tailChainHead and reads return a tampered row as persisted; only verify flags it', async () => {
    const s = open();
    const events: TransitionEvent[] = [simpleEvent('wf-t'), simpleEvent('wf-t', { prior: 'plan_ready', next: 'patch_applied' }), simpleEvent('wf-t', { prior: 'patch_applied', next: 'completed' })];
    for (const e of events) await s.append(e);
    const forged = `blake3:${'f'.repeat(64)}`;
    tamperSqliteRow(root, 'wf-t', 3, { next_head: forged });
    expect(await s.tailChainHead('wf-t')).toBe(forged);
    expect((await collect(s.readAllForWorkflow('wf-t'))).map((e) => e.transition_id)).toEqual(events.map((e) => e.transition_id));
    expect(await verify(s, 'wf-t')).toEqual({ status: 'chain_mismatch', rows: 3, first_bad_sequence: 3, tail_head: forged, break_head: expect.objectContaining({ column: 'next_head', stored_head: forged }) });
  });

  it('AC-11 a NULL in an appended event is refused with the event error id and writes nothing', async () => {
    const s = open();
    const first = simpleEvent('wf-n');
    const head = await s.append(first);
    const next = simpleEvent('wf-n', { prior: 'plan_ready', next: 'patch_applied' });
    const nulls: ReadonlyArray<[string, unknown]> = [
      ['transition_id', { ...next, transition_id: null }],
      ['prior_state_id', { ...next, prior_state_id: null }],
      ['next_state_id', { ...next, next_state_id: null }],
      ['occurred_at', { ...next, occurred_at: null }],
      ['triggering_outcome', { ...next, triggering_outcome: null }],
      ['triggering_outcome.kind', { ...next, triggering_outcome: { ...next.triggering_outcome, kind: null } }],
    ];
    for (const [field, bad] of nulls) {
      const err = await rejection(s.append(bad as TransitionEvent));
      expect(err.errorId ?? err.message, field).toBe('workflows.invalid_transition_event');
    }
    expect((await collect(s.readPersistedRows('wf-n'))).map((r) => r.transition_id)).toEqual([first.transition_id]);
    expect(await s.tailChainHead('wf-n')).toBe(head);
  });

  it("AC-11 SQLite's NOT NULL violation during append() is an error, never a silent skip; a failing clock fails the append and writes nothing", async () => {
    const s = open();
    const first = simpleEvent('wf-n');
    const head = await s.append(first);
    const path = s.databasePath('wf-n');
    await s.close();
    // The table gains a NOT NULL column that the store's INSERT does not fill: the next append hits SQLITE_CONSTRAINT_NOTNULL.
    const [table, index] = CHECKPOINT_CHAIN_SCHEMA.split(';\n');
    const db = new Database(path);
    db.exec('ALTER TABLE checkpoint_chain RENAME TO checkpoint_chain_old; DROP INDEX ix_chain_next_head;');
    db.exec(`${table!.replace(/\n\);?\s*$/, '\n  , audit_note     TEXT    NOT NULL\n)')};\n${index}`);
    db.exec("INSERT INTO checkpoint_chain SELECT *, 'kept' FROM checkpoint_chain_old; DROP TABLE checkpoint_chain_old;");
    db.close();
    const reopened = open();
    const next = simpleEvent('wf-n', { prior: 'plan_ready', next: 'patch_applied' });
    const err = await rejection(reopened.append(next));
    expect(err.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect((await collect(reopened.readPersistedRows('wf-n'))).map((r) => r.transition_id)).toEqual([first.transition_id]);
    expect(await reopened.tailChainHead('wf-n')).toBe(head);
    // A clock that cannot give a time fails the append; the ledger is untouched.
    const s2 = open();
    await s2.append(simpleEvent('wf-k'));
    const broken = open(() => new Date(Number.NaN));
    const clockErr = await rejection(broken.append(simpleEvent('wf-k', { prior: 'plan_ready', next: 'patch_applied' })));
    expect(clockErr.message).not.toBe('resolved');
    expect((await collect(s2.readPersistedRows('wf-k'))).length).toBe(1);
    expect((await verify(s2, 'wf-k')).status).toBe('ok');
  });

  it('AC-13 written_at comes from the injected clock only', async () => {
    let t = Date.UTC(2026, 0, 1);
    const s = open(() => new Date((t += 1500)));
    await s.append(simpleEvent('wf-c'));
    await s.append(simpleEvent('wf-c', { prior: 'plan_ready', next: 'patch_applied' }));
    expect((await collect(s.readPersistedRows('wf-c'))).map((r) => r.written_at)).toEqual(['2026-01-01T00:00:01.500000Z', '2026-01-01T00:00:03.000000Z']);
  });

  it('AC-14 adapter instances are frozen: a typo cannot create a stray attribute', () => {
    const s = open();
    expect(Object.isFrozen(s)).toBe(true);
    expect(() => {
      (s as unknown as Record<string, unknown>)._connetcion = 1;
    }).toThrow(TypeError);
  });

  it('secret shapes never reach the database file, its WAL, or the errors of appends that fail', async () => {
    const s = open();
    const wf = 'wf-secrets';
    const failures: Array<{ errorId?: string; message: string; details?: unknown }> = [];
    const expectedIds: string[] = [];
    const fail = async (want: string, p: Promise<unknown>): Promise<void> => {
      failures.push(await rejection(p));
      expectedIds.push(want);
    };
    for (const sample of SECRET_SAMPLES) {
      const stored = simpleEvent(wf, { detail: sample.secret });
      await s.append(stored);
      await s.append(simpleEvent(wf, { detail: `deploy log: ${sample.secret}`, kind: sample.secret.length <= 64 ? sample.secret : 'k' }));
      // A secret where a digest belongs is redacted and stored, not refused.
      await s.append({ ...simpleEvent(wf), triggering_outcome: { kind: 'k', evidence_digest: sample.secret, detail: sample.secret } } as TransitionEvent);
      // Appends that fail, each with the secret in its input.
      await fail('workflows.invalid_transition_event', s.append({ ...simpleEvent(wf), triggering_outcome: { kind: `${sample.secret}${'k'.repeat(70)}`, evidence_digest: null, detail: null } }));
      await fail('workflows.duplicate_transition_id', s.append({ ...stored, triggering_outcome: { ...stored.triggering_outcome, detail: `again ${sample.secret}` } }));
      await fail('workflows.invalid_transition_event', s.append({ ...simpleEvent(wf, { detail: sample.secret }), workflow_id: `wf/${sample.secret}` } as TransitionEvent));
      await fail('workflows.checkpoint_boundary_violation', s.append({ ...simpleEvent(wf, { detail: sample.secret }), next_state_id: 'needs_plan' } as TransitionEvent));
    }
    // Every one of them really failed, with its stable id.
    expect(failures.map((f) => f.errorId ?? f.message)).toEqual(expectedIds);
    const dbFile = s.databasePath(wf);
    const walBytes = readFileSync(`${dbFile}-wal`);
    expect(walBytes.byteLength).toBeGreaterThan(0);
    const check = (bytes: Buffer, what: string): void => {
      for (const sample of SECRET_SAMPLES) expect(bytes.includes(Buffer.from(sample.secret)), `${sample.shape} in ${what}`).toBe(false);
      expect(bytes.includes(Buffer.from('[REDACTED]')), `sentinel in ${what}`).toBe(true);
    };
    check(walBytes, 'wal');
    for (const f of failures) {
      const text = `${f.message} ${JSON.stringify(f.details ?? {})}`;
      for (const sample of SECRET_SAMPLES) expect(text.includes(sample.secret), `${sample.shape} in the error of a failed append (${f.errorId})`).toBe(false);
    }
    await s.close();
    check(readFileSync(dbFile), 'database file');
  });

  it('keeps working with more workflows than open connections (LRU)', async () => {
    const s = new SqliteChainStore(root, { maxOpenDatabases: 2 });
    stores.push(s);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5; i++) {
        const ev = round === 0 ? simpleEvent(`wf-${i}`) : simpleEvent(`wf-${i}`, { prior: 'plan_ready', next: 'patch_applied' });
        await s.append(ev);
      }
    }
    for (let i = 0; i < 5; i++) expect(await verify(s, `wf-${i}`)).toMatchObject({ status: 'ok', rows: 2 });
  });
});
