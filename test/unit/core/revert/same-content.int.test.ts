// Issue 32 item 4: a revert to a checkpoint whose content CURRENT already has publishes (ADR-0014), with the
// frozen request fields only; GF_CONFIRMATION_REQUIRED and confirm_same_content are gone from the engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { GF_CODES } from '../../../../core/errors';
import type { Envelope } from '../../../../core/contract/wire';
import { buildApiWorkspace, type ApiWorkspace } from '../../../support/api-workspace';
import { testUuid } from '../../../support/project-fixtures';

let root: string;
let ws: ApiWorkspace;
let facade: Facade;
let project: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-same-content-'));
  ws = await buildApiWorkspace(join(root, 'ws'));
  facade = createFacade({ mode: 'library' });
  project = (await facade.launch(ws.dir)).project;
});
afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

const call = (op: string, req: Record<string, unknown>): Promise<Envelope> => facade.dispatcher.dispatch(op, { ...req, project });
const codeOf = (env: Envelope): string => (env.ok ? 'ok' : env.error.code);
const current = async (): Promise<string> => ((await call('project.summary', {})) as { value: { current: { generation_uuid: string } } }).value.current.generation_uuid;

describe('same-content revert (ADR-0014)', () => {
  it('publishes a new generation with the frozen request fields; the preview flags it', async () => {
    expect(codeOf(await call('checkpoints.create', { name: 'here', idempotency_key: testUuid('same-create') }))).toBe('ok');
    const preview = (await call('revert.preview', { name: 'here' })) as { ok: true; value: { same_content: boolean } };
    expect(preview.value.same_content).toBe(true);
    const before = await current();
    const reverted = await call('checkpoints.revert', { name: 'here', reason: 'same again', idempotency_key: testUuid('same-revert') });
    expect(codeOf(reverted)).toBe('ok');
    const after = await current();
    expect(after).not.toBe(before);
    // A replay of the same request answers the same receipt and publishes nothing more.
    expect(codeOf(await call('checkpoints.revert', { name: 'here', reason: 'same again', idempotency_key: testUuid('same-revert') }))).toBe('ok');
    expect(await current()).toBe(after);
  });

  it('confirm_same_content is no request field (GF_VALIDATION, nothing written) and GF_CONFIRMATION_REQUIRED is no engine code', async () => {
    const before = await current();
    const refused = await call('checkpoints.revert', { name: 'here', reason: 'r', idempotency_key: testUuid('same-confirm'), confirm_same_content: true });
    expect(codeOf(refused)).toBe('GF_VALIDATION');
    expect(await current()).toBe(before);
    expect(GF_CODES as readonly string[]).not.toContain('GF_CONFIRMATION_REQUIRED');
  });
});
