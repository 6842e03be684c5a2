// checkpoint_surface_parity (the part the landed modules allow): one scripted
// scenario through the facade, the `gf` CLI (`--arrow`, in-process) and the
// HTTP bridge; Arrow bytes and error codes must be identical.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEXT_PAGE_TOKEN_KEY, type ArrowResult } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { startBridge, type Bridge } from '../../../../core/api/http-bridge';
import { decodeHttpResponse, type Envelope } from '../../../../core/contract/wire';
import { main } from '../../../../core/cli/main';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { demoOntologyYaml } from '../../../support/demo-ontology';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let bridgeFacade: Facade;
let bridge: Bridge;
let project: string;
let bridgeProject: string;

interface CliRun {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

async function cli(...argv: string[]): Promise<CliRun> {
  const out: Buffer[] = [];
  let err = '';
  const code = await main(argv, { stdout: (c) => void out.push(Buffer.from(c)), stderr: (c) => void (err += c) });
  return { code, stdout: Buffer.concat(out), stderr: err };
}

async function viaBridge(op: string, req: object): Promise<Envelope> {
  const res = await fetch(`${bridge.origin}/api/${op}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(req),
  });
  return decodeHttpResponse(res);
}

function bytesOf(env: Envelope): Buffer {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return Buffer.from((env.value as ArrowResult).bytes);
}
const codeOf = (env: Envelope): string => (env.ok ? 'ok' : env.error.code);
/** The GF code a failing CLI run printed first on stderr. */
const cliCode = (r: CliRun): string => (r.code === 0 ? 'ok' : (/GF_[A-Z_]+|workflows\.[a-z_]+/.exec(r.stderr)?.[0] ?? `exit ${r.code}`));

/** Runs one operation through the facade and the bridge (each over its own session of the same workspace). */
async function both(op: string, req: Record<string, unknown>): Promise<[Envelope, Envelope]> {
  return [await facade.dispatcher.dispatch(op, { ...req, project }), await viaBridge(op, { ...req, project: bridgeProject })];
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-parity-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library' });
  bridgeFacade = createFacade({ mode: 'browser' });
  bridge = await startBridge({ dispatcher: bridgeFacade.dispatcher });
  project = (await facade.launch(ws.dir)).project;
  bridgeProject = (await bridgeFacade.launch(ws.dir)).project;
});

afterAll(async () => {
  await bridge.close();
  await bridgeFacade.close();
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

describe('checkpoint_surface_parity', () => {
  it('create (and its replays), list, read, diff, cancel, delete, revert and chain verify give identical bytes and codes', async () => {
    // create through the facade; the CLI and the bridge replay the same operation → the original receipt.
    const key = testUuid('parity-create');
    const created = await facade.dispatcher.dispatch('checkpoints.create', { project, name: 'parity', idempotency_key: key });
    const cliCreate = await cli('checkpoint', 'create', 'parity', '--project', ws.dir, '--idempotency-key', key, '--arrow');
    const bridgeCreate = await viaBridge('checkpoints.create', { project: bridgeProject, name: 'parity', idempotency_key: key });
    expect(cliCreate.code).toBe(0);
    expect(cliCreate.stdout.equals(bytesOf(created))).toBe(true);
    expect(bytesOf(bridgeCreate).equals(bytesOf(created))).toBe(true);

    // list (one page)
    const [fl, bl] = await both('checkpoints.list', {});
    const cl = await cli('checkpoint', 'list', '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(fl)).getChild('name')?.toArray()).toEqual(['baseline', 'more nodes', 'parity']);
    expect(cl.stdout.equals(bytesOf(fl))).toBe(true);
    expect(bytesOf(bl).equals(bytesOf(fl))).toBe(true);

    // list across pages: the CLI's --arrow carries the next-page token in the schema metadata, so the full bytes match
    const [fp1, bp1] = await both('checkpoints.list', { limit: 2 });
    const listToken = (fp1 as { value: ArrowResult }).value.next_page_token;
    expect(listToken).not.toBeNull();
    const cp1 = await cli('checkpoint', 'list', '--project', ws.dir, '--limit', '2', '--arrow');
    expect(tableFromIPC(cp1.stdout).schema.metadata.get(NEXT_PAGE_TOKEN_KEY)).toBe(listToken);
    expect(cp1.stdout.equals(bytesOf(fp1))).toBe(true);
    expect(bytesOf(bp1).equals(bytesOf(fp1))).toBe(true);
    const [fp2, bp2] = await both('checkpoints.list', { limit: 2, after: listToken });
    const cp2 = await cli('checkpoint', 'list', '--project', ws.dir, '--limit', '2', '--after', listToken!, '--arrow');
    expect(tableFromIPC(bytesOf(fp2)).getChild('name')?.toArray()).toEqual(['parity']);
    expect(cp2.stdout.equals(bytesOf(fp2))).toBe(true);
    expect(bytesOf(bp2).equals(bytesOf(fp2))).toBe(true);

    // open and read: one page of records of a view
    const fv = await facade.dispatcher.dispatch('view.open', { project, name: 'baseline' });
    const bv = await viaBridge('view.open', { project: bridgeProject, name: 'baseline' });
    const fr = await facade.dispatcher.dispatch('view.records', { view: (fv as { value: { view: string } }).value.view, capability_id: 'graph', record_family_id: 'node' });
    const br = await viaBridge('view.records', { view: (bv as { value: { view: string } }).value.view, capability_id: 'graph', record_family_id: 'node' });
    const cr = await cli('checkpoint', 'open', 'baseline', '--project', ws.dir, '--arrow', '--', 'records', 'graph/node');
    expect(tableFromIPC(bytesOf(fr)).numRows).toBe(6);
    expect(cr.stdout.equals(bytesOf(fr))).toBe(true);
    expect(bytesOf(br).equals(bytesOf(fr))).toBe(true);
    // records across pages, full bytes (token in the metadata on every surface)
    const fvh = (fv as { value: { view: string } }).value.view;
    const bvh = (bv as { value: { view: string } }).value.view;
    const fr1 = await facade.dispatcher.dispatch('view.records', { view: fvh, capability_id: 'graph', record_family_id: 'node', limit: 4 });
    const br1 = await viaBridge('view.records', { view: bvh, capability_id: 'graph', record_family_id: 'node', limit: 4 });
    const recToken = (fr1 as { value: ArrowResult }).value.next_page_token;
    expect(recToken).not.toBeNull();
    const cr1 = await cli('checkpoint', 'open', 'baseline', '--project', ws.dir, '--arrow', '--', 'records', 'graph/node', '--limit', '4');
    expect(cr1.stdout.equals(bytesOf(fr1))).toBe(true);
    expect(bytesOf(br1).equals(bytesOf(fr1))).toBe(true);
    const fr2 = await facade.dispatcher.dispatch('view.records', { view: fvh, capability_id: 'graph', record_family_id: 'node', limit: 4, after: recToken });
    const br2 = await viaBridge('view.records', { view: bvh, capability_id: 'graph', record_family_id: 'node', limit: 4, after: recToken });
    const cr2 = await cli('checkpoint', 'open', 'baseline', '--project', ws.dir, '--arrow', '--', 'records', 'graph/node', '--limit', '4', '--after', recToken!);
    expect(tableFromIPC(bytesOf(fr2)).numRows).toBe(2);
    expect(cr2.stdout.equals(bytesOf(fr2))).toBe(true);
    expect(bytesOf(br2).equals(bytesOf(fr2))).toBe(true);

    // diff summary
    const [fs, bs] = await both('checkpoints.diff', { from: 'baseline', to: 'CURRENT', scope: 'all', detail: 'summary' });
    const cs = await cli('checkpoint', 'diff', 'baseline', 'CURRENT', '--project', ws.dir, '--scope', 'all', '--detail', 'summary', '--arrow');
    expect(cs.stdout.equals(bytesOf(fs))).toBe(true);
    expect(bytesOf(bs).equals(bytesOf(fs))).toBe(true);

    // diff records across pages (token of page 1 feeds page 2 on each surface)
    const [f1, b1] = await both('checkpoints.diff', { from: 'baseline', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 2 });
    const token = (f1 as { value: ArrowResult }).value.next_page_token;
    expect(token).not.toBeNull();
    expect(bytesOf(b1).equals(bytesOf(f1))).toBe(true);
    const c1 = await cli('checkpoint', 'diff', 'baseline', 'CURRENT', '--project', ws.dir, '--scope', 'graph', '--detail', 'records', '--limit', '2', '--arrow');
    // The token rides in the schema metadata on every surface (the CLI also hints it on stderr): full bytes match.
    expect(tableFromIPC(c1.stdout).schema.metadata.get(NEXT_PAGE_TOKEN_KEY)).toBe(token);
    expect(c1.stdout.equals(bytesOf(f1))).toBe(true);
    expect(c1.stderr).toContain(token);
    const [f2, b2] = await both('checkpoints.diff', { from: 'baseline', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 2, after: token });
    const c2 = await cli('checkpoint', 'diff', 'baseline', 'CURRENT', '--project', ws.dir, '--scope', 'graph', '--detail', 'records', '--limit', '2', '--after', token!, '--arrow');
    expect(bytesOf(b2).equals(bytesOf(f2))).toBe(true);
    expect(c2.stdout.equals(bytesOf(f2))).toBe(true);

    // cancel a diff (facade and bridge; the CLI has no cancel surface: Ctrl-C ends its process)
    const op = testUuid('parity-cancel');
    await facade.dispatcher.dispatch('operation.cancel', { operation_id: op });
    await viaBridge('operation.cancel', { operation_id: op });
    const [fc, bc] = await both('checkpoints.diff', { from: 'baseline', to: 'CURRENT', scope: 'all', detail: 'records', operation_id: op });
    expect([codeOf(fc), codeOf(bc)]).toEqual(['GF_CANCELLED', 'GF_CANCELLED']);

    // delete: facade deletes, CLI and bridge replay the same key → the same receipt
    const dkey = testUuid('parity-delete');
    const deleted = await facade.dispatcher.dispatch('checkpoints.delete', { project, name: 'parity', idempotency_key: dkey });
    const cd = await cli('checkpoint', 'delete', 'parity', '--project', ws.dir, '--idempotency-key', dkey, '--arrow');
    const bd = await viaBridge('checkpoints.delete', { project: bridgeProject, name: 'parity', idempotency_key: dkey });
    expect(cd.stdout.equals(bytesOf(deleted))).toBe(true);
    expect(bytesOf(bd).equals(bytesOf(deleted))).toBe(true);

    // revert: the facade reverts; the CLI and the bridge replay the same operation → the same receipt
    const rkey = testUuid('parity-revert');
    const reverted = await facade.dispatcher.dispatch('checkpoints.revert', { project, name: 'baseline', reason: 'parity check', idempotency_key: rkey });
    const crv = await cli('checkpoint', 'revert', 'baseline', '--project', ws.dir, '--reason', 'parity check', '--idempotency-key', rkey, '--arrow');
    const brv = await viaBridge('checkpoints.revert', { project: bridgeProject, name: 'baseline', reason: 'parity check', idempotency_key: rkey });
    expect(crv.code).toBe(0);
    expect(crv.stdout.equals(bytesOf(reverted))).toBe(true);
    expect(bytesOf(brv).equals(bytesOf(reverted))).toBe(true);
    const reuse = await cli('checkpoint', 'revert', 'baseline', '--project', ws.dir, '--reason', 'another reason', '--idempotency-key', rkey, '--arrow');
    const [fReuse, bReuse] = await both('checkpoints.revert', { name: 'baseline', reason: 'another reason', idempotency_key: rkey });
    expect([codeOf(fReuse), codeOf(bReuse), cliCode(reuse)]).toEqual(['GF_IDEMPOTENCY_CONFLICT', 'GF_IDEMPOTENCY_CONFLICT', 'GF_IDEMPOTENCY_CONFLICT']);

    // chain verify --all: the same report on every surface (the CLI then exits 1: a chain is tampered)
    const [fvf, bvf] = await both('chain.verify', {});
    const cvf = await cli('chain', 'verify', '--all', '--project', ws.dir, '--json');
    const results = (fvf as { value: { results: unknown[] } }).value.results;
    expect(JSON.stringify(bvf)).toBe(JSON.stringify(fvf));
    expect(JSON.parse(cvf.stdout.toString())).toEqual(results);
    expect(JSON.stringify(results)).toContain('"chain_mismatch"');
    expect(cvf.stderr).toContain('workflows.checkpoint_chain_mismatch');
  });

  it('graph pictures: find, neighbourhood (across pages) and the graph of a diff give identical bytes and codes', async () => {
    const fv = ((await facade.dispatcher.dispatch('view.open', { project, name: 'baseline' })) as { value: { view: string } }).value.view;
    const bv = ((await viaBridge('view.open', { project: bridgeProject, name: 'baseline' })) as { value: { view: string } }).value.view;
    const start = testUuid('w-node-0');
    const ff = await facade.dispatcher.dispatch('graph.find_nodes', { view: fv, text: 'Node w' });
    const bf = await viaBridge('graph.find_nodes', { view: bv, text: 'Node w' });
    const cf = await cli('graph', 'find', 'baseline', 'Node w', '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(ff)).numRows).toBe(6);
    expect(cf.stdout.equals(bytesOf(ff))).toBe(true);
    expect(bytesOf(bf).equals(bytesOf(ff))).toBe(true);

    const fn1 = await facade.dispatcher.dispatch('graph.neighbourhood', { view: fv, node_uuid: start, depth: 6, max_nodes: 2 });
    const bn1 = await viaBridge('graph.neighbourhood', { view: bv, node_uuid: start, depth: 6, max_nodes: 2 });
    const cn1 = await cli('graph', 'neighbourhood', 'baseline', start, '--depth', '6', '--max-nodes', '2', '--project', ws.dir, '--arrow');
    const token = (fn1 as { value: ArrowResult }).value.next_page_token;
    expect(token).not.toBeNull();
    expect(cn1.stdout.equals(bytesOf(fn1))).toBe(true);
    expect(bytesOf(bn1).equals(bytesOf(fn1))).toBe(true);
    const fn2 = await facade.dispatcher.dispatch('graph.neighbourhood', { view: fv, node_uuid: start, depth: 6, max_nodes: 2, after: token });
    const bn2 = await viaBridge('graph.neighbourhood', { view: bv, node_uuid: start, depth: 6, max_nodes: 2, after: token });
    const cn2 = await cli('graph', 'neighbourhood', 'baseline', start, '--depth', '6', '--max-nodes', '2', '--after', token!, '--project', ws.dir, '--arrow');
    expect(cn2.stdout.equals(bytesOf(fn2))).toBe(true);
    expect(bytesOf(bn2).equals(bytesOf(fn2))).toBe(true);

    const [fd, bd] = await both('graph.diff', { from: 'baseline', to: 'more nodes', limit: 2 });
    const cd = await cli('graph', 'diff', 'baseline', 'more nodes', '--limit', '2', '--project', ws.dir, '--arrow');
    const diffToken = (fd as { value: ArrowResult }).value.next_page_token;
    expect(diffToken).not.toBeNull();
    expect(cd.stdout.equals(bytesOf(fd))).toBe(true);
    expect(bytesOf(bd).equals(bytesOf(fd))).toBe(true);

    const missing = testUuid('no-such-node');
    const fe = await facade.dispatcher.dispatch('graph.neighbourhood', { view: fv, node_uuid: missing });
    const be = await viaBridge('graph.neighbourhood', { view: bv, node_uuid: missing });
    const ce = await cli('graph', 'neighbourhood', 'baseline', missing, '--project', ws.dir, '--arrow');
    expect([codeOf(fe), codeOf(be), cliCode(ce)]).toEqual(['GF_VALIDATION', 'GF_VALIDATION', 'GF_VALIDATION']);
    const [fx, bx] = await both('graph.diff', { from: 'baseline', to: 'more nodes', limit: 3, after: diffToken });
    const cx = await cli('graph', 'diff', 'baseline', 'more nodes', '--limit', '3', '--after', diffToken!, '--project', ws.dir, '--arrow');
    expect([codeOf(fx), codeOf(bx), cliCode(cx)]).toEqual(['GF_PAGE_INVALID', 'GF_PAGE_INVALID', 'GF_PAGE_INVALID']);
    await facade.dispatcher.dispatch('view.close', { view: fv });
    await viaBridge('view.close', { view: bv });
  });

  it('failures carry the same code on every surface', async () => {
    const cases: { readonly op: string; readonly req: Record<string, unknown>; readonly argv: string[]; readonly code: string }[] = [
      { op: 'view.open', req: { name: 'missing' }, argv: ['checkpoint', 'open', 'missing', '--project', ws.dir], code: 'GF_CHECKPOINT_NOT_FOUND' },
      { op: 'checkpoints.diff', req: { from: 'missing', to: 'CURRENT', scope: 'all', detail: 'summary' }, argv: ['checkpoint', 'diff', 'missing', 'CURRENT', '--project', ws.dir, '--scope', 'all', '--detail', 'summary', '--arrow'], code: 'GF_CHECKPOINT_NOT_FOUND' },
      { op: 'checkpoints.create', req: { name: 'baseline', idempotency_key: testUuid('parity-exists') }, argv: ['checkpoint', 'create', 'baseline', '--project', ws.dir, '--idempotency-key', testUuid('parity-exists'), '--arrow'], code: 'GF_CHECKPOINT_EXISTS' },
      { op: 'checkpoints.list', req: { after: 'AAAA' }, argv: ['checkpoint', 'list', '--project', ws.dir, '--after', 'AAAA', '--arrow'], code: 'GF_PAGE_INVALID' },
      { op: 'chain.verify', req: { workflow_id: 'no-such-flow' }, argv: ['chain', 'verify', 'no-such-flow', '--project', ws.dir, '--json'], code: 'workflows.workflow_not_found' },
      { op: 'checkpoints.delete', req: { name: 'missing', idempotency_key: testUuid('parity-del-missing') }, argv: ['checkpoint', 'delete', 'missing', '--project', ws.dir, '--idempotency-key', testUuid('parity-del-missing'), '--arrow'], code: 'GF_CHECKPOINT_NOT_FOUND' },
    ];
    for (const c of cases) {
      const [f, b] = await both(c.op, c.req);
      const r = await cli(...c.argv);
      expect([codeOf(f), codeOf(b), cliCode(r)], c.op).toEqual([c.code, c.code, c.code]);
      expect(r.code).toBe(1);
    }
  });

  it('edge cases of the shared rules: a decomposed name over 128 raw bytes, a reason that trims to the limit, show and revert preview', async () => {
    // 60 × "e + COMBINING ACUTE": 180 UTF-8 bytes as typed, 120 after NFC — every surface accepts it.
    const decomposed = 'e\u0301'.repeat(60);
    const key = testUuid('parity-nfc');
    const created = await facade.dispatcher.dispatch('checkpoints.create', { project, name: decomposed, idempotency_key: key });
    const cliCreate = await cli('checkpoint', 'create', decomposed, '--project', ws.dir, '--idempotency-key', key, '--arrow');
    const bridgeCreate = await viaBridge('checkpoints.create', { project: bridgeProject, name: decomposed, idempotency_key: key });
    expect([codeOf(created), cliCode(cliCreate), codeOf(bridgeCreate)]).toEqual(['ok', 'ok', 'ok']);
    expect(cliCreate.stdout.equals(bytesOf(created))).toBe(true);
    expect(bytesOf(bridgeCreate).equals(bytesOf(created))).toBe(true);

    // show_checkpoint: one checkpoint@1 row, the same bytes everywhere (the NFC name finds it).
    const [fShow, bShow] = await both('checkpoints.show', { name: decomposed });
    const cShow = await cli('checkpoint', 'show', decomposed.normalize('NFC'), '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(fShow)).getChild('name')?.toArray()).toEqual([decomposed.normalize('NFC')]);
    expect(cShow.stdout.equals(bytesOf(fShow))).toBe(true);
    expect(bytesOf(bShow).equals(bytesOf(fShow))).toBe(true);

    // preview_revert_to_checkpoint: the same JSON, with its summary rows.
    const [fPrev, bPrev] = await both('revert.preview', { name: 'baseline' });
    const cPrev = await cli('checkpoint', 'revert', 'baseline', '--preview', '--project', ws.dir, '--json');
    expect(JSON.parse(cPrev.stdout.toString())).toEqual((fPrev as { value: unknown }).value);
    expect(JSON.stringify(bPrev)).toBe(JSON.stringify(fPrev));
    expect(((fPrev as { value: { changes: unknown[] } }).value.changes.length)).toBeGreaterThan(0);

    // A reason padded with whitespace that trims to exactly 1,024 bytes: accepted by every surface, stored trimmed.
    const reason = `  ${'r'.repeat(1024)}\n`;
    const rkey = testUuid('parity-reason-limit');
    // An earlier case already restored 'baseline': the same content again publishes like any revert (ADR-0014).
    const reverted = await facade.dispatcher.dispatch('checkpoints.revert', { project, name: 'baseline', reason, idempotency_key: rkey });
    const crv = await cli('checkpoint', 'revert', 'baseline', '--project', ws.dir, '--reason', reason, '--idempotency-key', rkey, '--arrow');
    const brv = await viaBridge('checkpoints.revert', { project: bridgeProject, name: 'baseline', reason, idempotency_key: rkey });
    expect([codeOf(reverted), cliCode(crv), codeOf(brv)]).toEqual(['ok', 'ok', 'ok']);
    expect(crv.stdout.equals(bytesOf(reverted))).toBe(true);
    expect(bytesOf(brv).equals(bytesOf(reverted))).toBe(true);
    const over = ` ${'r'.repeat(1025)} `;
    const okey = testUuid('parity-reason-over');
    const [fOver, bOver] = await both('checkpoints.revert', { name: 'baseline', reason: over, idempotency_key: okey });
    const cOver = await cli('checkpoint', 'revert', 'baseline', '--project', ws.dir, '--reason', over, '--idempotency-key', okey, '--arrow');
    expect([codeOf(fOver), codeOf(bOver), cliCode(cOver)]).toEqual(['GF_VALIDATION', 'GF_VALIDATION', 'GF_VALIDATION']);
  });

  it('workspace documents: ontology and configuration reads, adopt and clear (with replays) and their refusals give identical bytes and codes', async () => {
    const file = join(root, 'ontology.yaml');
    const source = demoOntologyYaml();
    writeFileSync(file, source);

    // adopt: the facade adopts; the CLI and the bridge replay the same key → the same receipt bytes.
    const akey = testUuid('parity-adopt');
    const adopted = await facade.dispatcher.dispatch('workspace.adopt_ontology', { project, source, source_format: 'yaml', mode: 'advisory', idempotency_key: akey });
    const cAdopt = await cli('ontology', 'adopt', file, '--mode', 'advisory', '--project', ws.dir, '--idempotency-key', akey, '--arrow');
    const bAdopt = await viaBridge('workspace.adopt_ontology', { project: bridgeProject, source, source_format: 'yaml', mode: 'advisory', idempotency_key: akey });
    expect([codeOf(adopted), cliCode(cAdopt), codeOf(bAdopt)]).toEqual(['ok', 'ok', 'ok']);
    expect(cAdopt.stdout.equals(bytesOf(adopted))).toBe(true);
    expect(bytesOf(bAdopt).equals(bytesOf(adopted))).toBe(true);

    // workspace.ontology / workspace.configuration of CURRENT: one row, the same bytes on every surface.
    const [fOnt, bOnt] = await both('workspace.ontology', {});
    const cOnt = await cli('ontology', 'show', '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(fOnt)).getChild('mode')?.toArray()).toEqual(['advisory']);
    expect(cOnt.stdout.equals(bytesOf(fOnt))).toBe(true);
    expect(bytesOf(bOnt).equals(bytesOf(fOnt))).toBe(true);
    const [fCfg, bCfg] = await both('workspace.configuration', {});
    const cCfg = await cli('config', 'show', '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(fCfg)).numRows).toBe(1);
    expect(cCfg.stdout.equals(bytesOf(fCfg))).toBe(true);
    expect(bytesOf(bCfg).equals(bytesOf(fCfg))).toBe(true);

    // The same key with another mode: the same conflict everywhere.
    const [fConf, bConf] = await both('workspace.adopt_ontology', { source, source_format: 'yaml', mode: 'strict', idempotency_key: akey });
    const cConf = await cli('ontology', 'adopt', file, '--mode', 'strict', '--project', ws.dir, '--idempotency-key', akey, '--arrow');
    expect([codeOf(fConf), codeOf(bConf), cliCode(cConf)]).toEqual(['GF_IDEMPOTENCY_CONFLICT', 'GF_IDEMPOTENCY_CONFLICT', 'GF_IDEMPOTENCY_CONFLICT']);

    // clear: the facade clears; the CLI and the bridge replay → the same receipt; the ontology reads mode none.
    const ckey = testUuid('parity-clear');
    const cleared = await facade.dispatcher.dispatch('workspace.clear_ontology', { project, idempotency_key: ckey });
    const cClear = await cli('ontology', 'clear', '--project', ws.dir, '--idempotency-key', ckey, '--arrow');
    const bClear = await viaBridge('workspace.clear_ontology', { project: bridgeProject, idempotency_key: ckey });
    expect([codeOf(cleared), cliCode(cClear), codeOf(bClear)]).toEqual(['ok', 'ok', 'ok']);
    expect(cClear.stdout.equals(bytesOf(cleared))).toBe(true);
    expect(bytesOf(bClear).equals(bytesOf(cleared))).toBe(true);
    const [fNone, bNone] = await both('workspace.ontology', {});
    const cNone = await cli('ontology', 'show', '--project', ws.dir, '--arrow');
    expect(tableFromIPC(bytesOf(fNone)).getChild('mode')?.toArray()).toEqual(['none']);
    expect(cNone.stdout.equals(bytesOf(fNone))).toBe(true);
    expect(bytesOf(bNone).equals(bytesOf(fNone))).toBe(true);

    // A source that does not parse: the same refusal everywhere, nothing published.
    const broken = 'classes: [unclosed\n';
    const badFile = join(root, 'broken.yaml');
    writeFileSync(badFile, broken);
    const bkey = testUuid('parity-adopt-broken');
    const [fBad, bBad] = await both('workspace.adopt_ontology', { source: broken, source_format: 'yaml', mode: 'advisory', idempotency_key: bkey });
    const cBad = await cli('ontology', 'adopt', badFile, '--mode', 'advisory', '--project', ws.dir, '--idempotency-key', bkey, '--arrow');
    expect(codeOf(fBad)).not.toBe('ok');
    expect([codeOf(bBad), cliCode(cBad)]).toEqual([codeOf(fBad), codeOf(fBad)]);
  });
});
