import { describe, expect, it } from 'vitest';
import { ONTOLOGY_INPUT_LIMITS } from '../../../../core/contract/workspace';
import { MAX_VECTOR_FILE_CHARS, OPERATIONS, OPERATION_NAMES, type OperationName } from '../../../../core/contract/operations';
import { createDispatcher, validateRequest, type Implementations } from '../../../../core/api/dispatcher';
import { hasCode } from '../../../../core/errors';

const H = '0190a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';
const U = '018f0f4e-7b8c-7000-8000-000000000001';

/** A valid request for every declared operation (a new operation must add one). */
const VALID: Record<OperationName, Record<string, unknown>> = {
  'app.session': {},
  'app.choose_workspace': {},
  'project.open': { path: '/tmp/some project' },
  'project.create': { path: '/tmp/new' },
  'project.close': { project: H },
  'project.summary': { project: H },
  'checkpoints.list': { project: H, limit: 10, after: null },
  'checkpoints.create': { project: H, name: 'Release 1.0', description: 'rc', idempotency_key: U, actor_uuid: U },
  'checkpoints.delete': { project: H, name: 'Release 1.0', idempotency_key: U },
  'checkpoints.diff': { project: H, from: 'Release 1.0', to: 'CURRENT', scope: 'all', detail: 'records', limit: 100, operation_id: U },
  'checkpoints.diff_stat': { project: H, from: 'Release 1.0', to: 'CURRENT', scope: 'all', operation_id: U },
  'operation.cancel': { operation_id: U },
  'checkpoints.record_change': { project: H, from: 'Release 1.0', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: U } },
  'revert.preview': { project: H, name: 'Release 1.0' },
  'checkpoints.show': { project: H, name: 'Release 1.0' },
  'checkpoints.revert': { project: H, name: 'Release 1.0', reason: 'roll back the bad import', idempotency_key: U },
  'view.open': { project: H, name: 'Release 1.0' },
  'view.close': { view: H },
  'view.participants': { view: H },
  'view.records': { view: H, capability_id: 'graph', record_family_id: 'nodes', limit: 5 },
  'view.record': { view: H, capability_id: 'graph', record_family_id: 'nodes', identity: { node_uuid: U } },
  'chain.list': { project: H },
  'chain.read': { project: H, workflow_id: 'wf-1:build.2', limit: 50 },
  'chain.verify': { project: H, workflow_id: 'wf-1' },
  'chain.health': { project: H },
  'threads.list': { source: { kind: 'sqlite', path: '/tmp/agent/checkpoints.sqlite' }, prefix: 'run-', limit: 50 },
  'threads.history': { source: { kind: 'postgres' }, thread_id: 'run-1', limit: 50 },
  'threads.state': { source: { kind: 'postgres' }, thread_id: 'run-1', checkpoint_id: U },
  'threads.diff': { source: { kind: 'postgres' }, thread_id: 'run-1', from: U, to: 'HEAD', limit: 50, operation_id: U },
  'threads.restore': { source: { kind: 'postgres' }, thread_id: 'run-1', checkpoint_id: U, reason: 'undo the bad review', actor: 'ops', idempotency_key: U },
  'threads.health': { source: { kind: 'postgres' } },
  'threads.namespaces': { source: { kind: 'postgres' }, thread_id: 't' },
  'threads.prune_preview': { source: { kind: 'postgres' }, keep_last: 5, thread_id: 'run-1', limit: 50 },
  'threads.prune': { source: { kind: 'postgres' }, keep_last: 5, thread_id: 'run-1', reason: 'keep the database small', actor: 'ops', idempotency_key: U, expected_preview_digest: 'a'.repeat(64) },
  'chain.open': { path: '/tmp/ledgers' },
  'chain.rows': { project: H, workflow_id: 'wf-1', limit: 50 },
  'project.publish': { project: H, changes: [{ kind: 'put', capability_id: 'workspace', record_family_id: 'configuration', bytes_base64: 'e30=' }, { kind: 'remove', capability_id: 'graph', record_family_id: 'edge' }], timeout_ms: 0 },
  'demo.create': { path: '/tmp/demo', records: 50, seed: 1 },
  'canonical.vectors': { text: '{"vectors": []}' },
  'project.doctor': { path: '/tmp/ws', repair: true },
  'workspace.ontology': { project: H },
  'workspace.configuration': { project: H },
  'workspace.adopt_ontology': { project: H, source: 'classes: []', source_format: 'yaml', mode: 'strict', idempotency_key: H },
  'workspace.clear_ontology': { project: H, idempotency_key: H },
  'history.list': { project: H, limit: 50, kind: 'revert' },
  'retention.show': { project: H },
  'retention.set': { project: H, retain_ancestors: 2 },
  'project.changes': { project: H },
  'actor.show': {},
  'actor.rename': { display_name: 'Ada Lovelace' },
  'actor.resolve': { actor: 'ops' },
  'graph.find_nodes': { view: H, text: 'Paper', limit: 10 },
  'graph.neighbourhood': { view: H, node_uuid: H, depth: 2, max_nodes: 2000 },
  'graph.diff': { project: H, from: 'Graph imported', to: 'CURRENT', record_family_id: 'node', change_kinds: ['added'], limit: 2000 },
};

/** Free-text fields where path-like text is legitimate content (the path field is the explicit directory). */
// Free text: a search is any text a person looks for (a label may contain '../').
// A display name is a person's name, never a path.
const FREE_TEXT = new Set(['path', 'reason', 'description', 'text', 'search', 'display_name']);
/** Fields bounded above the common 70,000-character probe (a whole golden-vector file). */
const LARGE_TEXT: Readonly<Record<string, number>> = { text: MAX_VECTOR_FILE_CHARS };
/** LangGraph thread and checkpoint ids are the agent's own text (any characters but controls): path-like text is content there too. */
const THREAD_FREE_TEXT = new Set(['thread_id', 'checkpoint_id', 'checkpoint_ns', 'expected_head_checkpoint_id', 'from', 'to', 'prefix', 'actor']);
const isFreeText = (op: OperationName, f: string): boolean =>
  FREE_TEXT.has(f) || (op.startsWith('threads.') && THREAD_FREE_TEXT.has(f)) || (op === 'workspace.adopt_ontology' && f === 'source') || (op === 'actor.resolve' && f === 'actor');

function fieldsOf(op: OperationName): string[] {
  const shape = (OPERATIONS[op].request as unknown as { shape: Record<string, unknown> }).shape;
  return Object.keys(shape);
}

function malformed(op: OperationName): [string, unknown][] {
  const base = VALID[op];
  const cases: [string, unknown][] = [
    ['null', null],
    ['array', [base]],
    ['string', 'x'],
    ['extra key', { ...base, extra: 1 }],
    ['__proto__ (JSON)', JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(base).slice(1, -1)}}`.replace(', }', '}'))],
    ['constructor key', { ...base, constructor: { prototype: {} } }],
  ];
  for (const f of fieldsOf(op)) {
    cases.push([`${f}: number`, { ...base, [f]: 42.5 }]);
    cases.push([`${f}: object`, { ...base, [f]: { '../x': [1] } }]);
    // An ontology input is a document (bounded by the engine at 1 MiB); past the surface bound it is refused too.
    const oversized = op === 'workspace.adopt_ontology' && f === 'source' ? 4 * ONTOLOGY_INPUT_LIMITS.bytes : (LARGE_TEXT[f] ?? 70_000 - 1);
    cases.push([`${f}: oversized`, { ...base, [f]: 'a'.repeat(oversized + 1) }]);
    if (!isFreeText(op, f)) cases.push([`${f}: path-like`, { ...base, [f]: '../../etc/passwd' }]);
  }
  return cases;
}

describe('contract request validation', () => {
  it('declares every operation with a strict request schema and a result kind', () => {
    expect(OPERATION_NAMES.length).toBeGreaterThanOrEqual(20);
    for (const op of OPERATION_NAMES) {
      expect(['json', 'arrow']).toContain(OPERATIONS[op].result);
      expect(() => validateRequest(op, VALID[op])).not.toThrow();
    }
  });

  for (const op of OPERATION_NAMES) {
    it(`${op}: malformed payloads are GF_VALIDATION`, () => {
      for (const [label, payload] of malformed(op)) {
        let caught: unknown;
        try {
          validateRequest(op, payload);
        } catch (e) {
          caught = e;
        }
        // A field-level failure of the page token alone is a bad page (the engine's own code for bad tokens).
        const want = label.startsWith('after:') ? 'GF_PAGE_INVALID' : 'GF_VALIDATION';
        expect(hasCode(caught, want), `${op} / ${label}`).toBe(true);
      }
    });
  }

  it('accepts CURRENT as a diff endpoint and rejects unknown scopes and detail levels', () => {
    const base = VALID['checkpoints.diff'];
    expect(validateRequest('checkpoints.diff', { ...base, from: 'CURRENT' }).from).toBe('CURRENT');
    for (const bad of [{ scope: 'everything' }, { detail: 'full' }, { limit: 0 }, { limit: 10_001 }, { limit: 1.5 }]) {
      expect(() => validateRequest('checkpoints.diff', { ...base, ...bad })).toThrow(/GF_VALIDATION/);
    }
  });

  it('refuses uppercase or non-canonical UUIDs, names with separators, control characters or outer spaces', () => {
    const base = VALID['checkpoints.create'];
    for (const bad of [
      { idempotency_key: U.toUpperCase() },
      { idempotency_key: U.replaceAll('-', '') },
      { name: 'a/b' },
      { name: 'a\\b' },
      { name: '..' },
      { name: ' padded' },
      { name: 'tab\there' },
      { name: 'é'.repeat(65) },
      { description: 'd'.repeat(1025) },
    ]) {
      expect(() => validateRequest('checkpoints.create', { ...base, ...bad }), JSON.stringify(bad)).toThrow(/GF_VALIDATION/);
    }
    expect(() => validateRequest('checkpoints.revert', { ...VALID['checkpoints.revert'], reason: '   ' })).toThrow(/GF_VALIDATION/);
  });

  it('validation details name the operation and declared fields, never the values or unknown keys', () => {
    try {
      validateRequest('checkpoints.create', { ...VALID['checkpoints.create'], name: 'secret/value', sneaky_key: 1 });
      expect.unreachable();
    } catch (e) {
      const details = (e as { details: Record<string, unknown> }).details;
      expect(details['operation']).toBe('checkpoints.create');
      expect(details['fields']).toEqual(['name']);
      expect(details['unexpected_keys']).toBe(true);
      expect(JSON.stringify(details)).not.toContain('secret');
      expect(JSON.stringify(details)).not.toContain('sneaky');
    }
  });
});

describe('dispatcher', () => {
  it('never reaches an implementation with a malformed payload, and reaches it with a valid one', async () => {
    const calls: string[] = [];
    const impls: Record<string, (r: unknown) => Promise<unknown>> = {};
    for (const op of OPERATION_NAMES) {
      impls[op] = async () => {
        calls.push(op);
        return { kind: 'arrow', bytes: new Uint8Array(), next_page_token: null };
      };
    }
    const d = createDispatcher(impls as unknown as Implementations);
    expect(d.available).toEqual(OPERATION_NAMES);
    for (const op of OPERATION_NAMES) {
      for (const [, payload] of malformed(op)) {
        const env = await d.dispatch(op, payload);
        expect(env.ok).toBe(false);
        if (!env.ok) expect(['GF_VALIDATION', 'GF_PAGE_INVALID']).toContain(env.error.code);
      }
    }
    expect(calls).toEqual([]);
    for (const op of OPERATION_NAMES) expect((await d.dispatch(op, VALID[op])).ok).toBe(true);
    expect(calls).toEqual([...OPERATION_NAMES]);
  });

  it('refuses undeclared and unimplemented operation names (including prototype names) with GF_VALIDATION', async () => {
    const d = createDispatcher({ 'app.session': async () => ({ project: null, mode: 'library', operations: [], threads: { default_sqlite: null, postgres: false } }) });
    expect(d.available).toEqual(['app.session']);
    for (const op of ['toString', '__proto__', 'constructor', 'project.summary', 'nope', '']) {
      const env = await d.dispatch(op, {});
      expect(env.ok ? 'ok' : env.error.code).toBe('GF_VALIDATION');
    }
  });

  it('turns a non-engine exception into GF_INTERNAL (never GF_IO: no file was involved) without leaking its message', async () => {
    const d = createDispatcher({
      'app.session': async () => {
        throw new Error('/home/alice/secret path exploded');
      },
    });
    const env = await d.dispatch('app.session', {});
    expect(env.ok).toBe(false);
    if (!env.ok) {
      expect(env.error.code).toBe('GF_INTERNAL');
      expect(env.error.message).not.toContain('alice');
    }
  });
});
