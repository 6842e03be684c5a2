import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CHAIN_ERROR_IDS } from '../../../../core/chain/errors';
import { LEGAL_TRANSITIONS, SEMANTIC_BOUNDARY_KINDS, type TransitionEvent, type WorkflowId } from '../../../../core/chain/event';
import { GENESIS, type ChainHead } from '../../../../core/chain/head';
import { InMemoryChainStore } from '../../../../core/chain/memory/memory-store';
import { MAX_EVENT_BYTES, type ChainStore, type ChainStoreWithReaders, type PersistedRow, type WorkflowLister } from '../../../../core/chain/port';
import { CHECKPOINT_CHAIN_SCHEMA } from '../../../../core/chain/sqlite/sqlite-schema';
import { SqliteChainStore } from '../../../../core/chain/sqlite/sqlite-store';
import { classifyContractDelta, driftDirective } from './contract-delta';
import { expectGolden, fixtureText } from './golden';

const PORT_SRC = readFileSync(join(import.meta.dirname, '../../../../core/chain/port.ts'), 'utf8');

function interfaceMembers(name: string): string[] {
  const start = PORT_SRC.indexOf(`export interface ${name} {`);
  const body = PORT_SRC.slice(start, PORT_SRC.indexOf('\n}\n', start));
  return [...body.replace(/\/\*\*[\s\S]*?\*\//g, '').matchAll(/^ {2}(\S.*);$/gm)].map((m) => m[1] as string);
}

// AC-1 compile-time: exactly the five operations (a missing or extra key is a type error here).
const FIVE: Record<keyof ChainStore, true> = { append: true, readAllForWorkflow: true, tailChainHead: true, lock: true, close: true };

describe('the chain store port', () => {
  it('AC-1 ChainStore has exactly five operations with the documented signatures', () => {
    expect(Object.keys(FIVE)).toEqual(['append', 'readAllForWorkflow', 'tailChainHead', 'lock', 'close']);
    expect(interfaceMembers('ChainStore')).toEqual([
      'append(event: TransitionEvent): Promise<ChainHead>',
      'readAllForWorkflow(workflowId: WorkflowId): AsyncIterable<TransitionEvent>',
      'tailChainHead(workflowId: WorkflowId): Promise<ChainHead>',
      'lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T>',
      'close(): Promise<void>',
    ]);
    expectTypeOf<ChainStore['append']>().toEqualTypeOf<(event: TransitionEvent) => Promise<ChainHead>>();
    expectTypeOf<ChainStore['tailChainHead']>().toEqualTypeOf<(workflowId: WorkflowId) => Promise<ChainHead>>();
    expectTypeOf<WorkflowLister['listWorkflows']>().toEqualTypeOf<() => Promise<readonly WorkflowId[]>>();
    expectTypeOf<keyof PersistedRow>().toEqualTypeOf<'sequence' | 'transition_id' | 'prior_head' | 'next_head' | 'event_bytes' | 'written_at'>();
  });

  it('AC-2 the port is the kernel: it imports no adapter and no driver (adapters are additions beside it)', () => {
    const imports = [...PORT_SRC.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.every((i) => i === './event' || i === './head')).toBe(true);
    expect(PORT_SRC).not.toMatch(/sqlite|postgres|memory-store|better-sqlite3|'pg'/);
  });

  it('AC-16 both adapters satisfy the port and its read sides at compile time', () => {
    const stores: ChainStoreWithReaders[] = [new InMemoryChainStore(), new SqliteChainStore('/nonexistent-never-written')];
    expect(stores.map((s) => typeof s.append)).toEqual(['function', 'function']);
  });

  it('AC-15 contract snapshot: port shape, boundary catalog, cap, edges, schema, genesis and error ids (golden)', () => {
    const snapshot = currentSnapshot();
    const delta = classifyContractDelta(JSON.parse(fixtureText('contract-snapshot.json')) as Record<string, unknown>, JSON.parse(JSON.stringify(snapshot)) as Record<string, unknown>);
    expect(delta, delta === 'none' ? '' : driftDirective(delta)).toBe('none');
    expectGolden('contract-snapshot', snapshot);
  });

  it('AC-15 meta-test: the classifier calls a store-shaped addition additive and a removed boundary kind breaking', () => {
    const golden = JSON.parse(fixtureText('contract-snapshot.json')) as Record<string, unknown>;
    const chainStore = golden['chain_store'] as string[];
    const kinds = golden['semantic_boundary_kinds'] as string[];
    // Additive: a new adapter method with default behaviour appended to the port.
    const additive = { ...golden, chain_store: [...chainStore, 'health(): Promise<void>'] };
    // Breaking: a semantic boundary kind removed.
    const breaking = { ...golden, semantic_boundary_kinds: kinds.filter((k) => k !== 'awaiting_human_review') };
    expect(kinds).toContain('awaiting_human_review');
    expect(classifyContractDelta(golden, golden)).toBe('none');
    expect(classifyContractDelta(golden, additive)).toBe('additive');
    expect(classifyContractDelta(golden, breaking)).toBe('breaking');
    // The reverse of an addition is a removal, so breaking too; a smaller cap is breaking, a larger one additive.
    expect(classifyContractDelta(additive, golden)).toBe('breaking');
    expect(classifyContractDelta(golden, { ...golden, max_event_bytes: (golden['max_event_bytes'] as number) - 1 })).toBe('breaking');
    expect(classifyContractDelta(golden, { ...golden, max_event_bytes: (golden['max_event_bytes'] as number) + 1 })).toBe('additive');
    expect(driftDirective('breaking')).toMatch(/BREAKING/);
    expect(driftDirective('additive')).toMatch(/GF_UPDATE_GOLDENS=1/);
  });
});

function currentSnapshot(): Record<string, unknown> {
  return {
      chain_store: interfaceMembers('ChainStore'),
      workflow_lister: interfaceMembers('WorkflowLister'),
      persisted_row_reader: interfaceMembers('PersistedRowReader'),
      persisted_row: interfaceMembers('PersistedRow'),
      semantic_boundary_kinds: [...SEMANTIC_BOUNDARY_KINDS].sort(),
      max_event_bytes: MAX_EVENT_BYTES,
      legal_transitions: LEGAL_TRANSITIONS,
      sqlite_schema: CHECKPOINT_CHAIN_SCHEMA,
      genesis: GENESIS,
      error_ids: [...CHAIN_ERROR_IDS],
  };
}
