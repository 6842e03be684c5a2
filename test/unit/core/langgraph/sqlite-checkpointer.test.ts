// Story S5-01 A–C for the SQLite adapter (real database files).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { SqliteCheckpointerAdapter, type LangGraphCheckpointerPort } from '../../../../core/langgraph';
import { putChain, sampleCheckpoint } from './langgraph-support';

const dir = mkdtempSync(join(tmpdir(), 'gf-lg-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `threads-${(n += 1)}.sqlite`);

describe('SqliteCheckpointerAdapter', () => {
  it('A2: satisfies LangGraphCheckpointerPort, at the type level and at run time', async () => {
    const adapter = new SqliteCheckpointerAdapter({ path: freshPath() });
    expectTypeOf(adapter).toExtend<LangGraphCheckpointerPort>();
    const port: LangGraphCheckpointerPort = adapter;
    expect(typeof port.health).toBe('function');
    expect(await port.saver()).toBeInstanceOf(SqliteSaver);
    await adapter.close();
  });

  it('B1: saver() is upstream SqliteSaver on the given file, the same object on every call (also under 10 concurrent first calls)', async () => {
    const path = freshPath();
    const adapter = new SqliteCheckpointerAdapter({ path });
    expect(existsSync(path)).toBe(false);
    const savers = await Promise.all(Array.from({ length: 10 }, () => adapter.saver()));
    expect(new Set(savers).size).toBe(1);
    expect(Object.getPrototypeOf(savers[0])).toBe(SqliteSaver.prototype);
    expect(savers[0]?.db.name).toBe(path);
    expect(await adapter.saver()).toBe(savers[0]);
    await adapter.close();
  });

  it('C1/C3: health() is frozen, counts the one connection, and ages from Infinity to ≤ 1 s after a write', async () => {
    const path = freshPath();
    const adapter = new SqliteCheckpointerAdapter({ path });
    const h0 = adapter.health();
    expect(Object.isFrozen(h0)).toBe(true);
    expect(h0).toEqual({ pool_in_use: 0, pool_idle: 0, last_write_age_seconds: Number.POSITIVE_INFINITY });
    const saver = await adapter.saver();
    expect(adapter.health()).toEqual({ pool_in_use: 0, pool_idle: 1, last_write_age_seconds: Number.POSITIVE_INFINITY });
    await expect((saver as BaseCheckpointSaver).put({}, sampleCheckpoint(0), { source: 'loop', step: 0, parents: {} }, {})).rejects.toThrow('Empty configuration supplied.');
    expect(adapter.health().last_write_age_seconds).toBe(Number.POSITIVE_INFINITY);
    const config = await putChain(saver, 'c3', 2);
    expect(adapter.health().last_write_age_seconds).toBeLessThanOrEqual(1);

    const other = new SqliteCheckpointerAdapter({ path });
    const otherSaver = await other.saver();
    await otherSaver.putWrites(config, [['notes', 'a write']], 'task-1');
    expect(other.health().last_write_age_seconds).toBeLessThanOrEqual(1);
    await other.close();
    await adapter.close();
    expect(adapter.health().pool_idle).toBe(0);
    await adapter.close();
    await expect(adapter.saver()).rejects.toThrow('closed');
  });

  it('a fresh adapter on the same file reads what another wrote, byte for byte', async () => {
    const path = freshPath();
    const a = new SqliteCheckpointerAdapter({ path });
    const config = await putChain(await a.saver(), 'resume', 3);
    const written = await (await a.saver()).getTuple(config);
    await a.close();
    const b = new SqliteCheckpointerAdapter({ path });
    const read = await (await b.saver()).getTuple(config);
    expect(read?.checkpoint).toEqual(written?.checkpoint);
    await b.close();
  });
});
