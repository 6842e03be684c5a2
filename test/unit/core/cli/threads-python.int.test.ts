// `gf threads show` on a database Python LangGraph wrote: the table shows values as Python prints them,
// `--json` gives the documented shape of each Python type (PythonValueJson, with the Python type name).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../../core/cli/main';
import type { ThreadState } from '../../../../core/contract/threads';
import { PY_SQLITE } from '../langgraph/python-fixtures';

const dir = mkdtempSync(join(tmpdir(), 'gf-threads-py-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'python.sqlite');
copyFileSync(PY_SQLITE, path);

async function gf(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (c) => void (out += String(c)), stderr: (c) => void (err += c) });
  return { code, out, err };
}

describe('gf threads show on a Python-written database', () => {
  it('--json: each value in its documented shape, with the Python type name', async () => {
    const r = await gf('threads', 'show', 'fix-1', '--sqlite', path, '--json');
    expect(r.code).toBe(0);
    const st = JSON.parse(r.out) as ThreadState;
    const v = Object.fromEntries(st.values.map((c) => [c.channel, { type: c.type, value: c.value }]));
    expect(v['plan']).toEqual({
      type: 'Plan',
      value: { python_type: 'Plan', python_module: '__main__', pydantic: 'v2', fields: { title: 'patch', steps: ['scan', 'fix'], budget: { python_type: 'Decimal', python_module: 'decimal', value: '12.50' }, due: { python_type: 'date', python_module: 'datetime', iso: '2026-12-24' } } },
    });
    expect(v['priority']).toEqual({ type: 'Priority', value: { python_type: 'Priority', python_module: '__main__', value: 'high' } });
    expect(v['raw']).toEqual({ type: 'bytes', value: { python_type: 'bytes', size: 8, base64: 'AAFiaW5hcnk=' } });
    expect(v['elapsed']).toEqual({ type: 'timedelta', value: { python_type: 'timedelta', python_module: 'datetime', days: 0, seconds: 90, microseconds: 0, total_seconds: 90 } });
    expect(v['run_id']?.value).toEqual({ python_type: 'UUID', python_module: 'uuid', value: '12345678-1234-5678-1234-567812345678' });
    expect(v['seen']?.value).toEqual({ python_type: 'set', python_module: 'builtins', items: ['lib-a', 'lib-b'] });
    expect(v['window']).toEqual({ type: 'array', value: [1, 2, 3] }); // a tuple at the top is a list: Python reads it back so
    const first = (v['messages']?.value as { python_type: string; fields: Record<string, unknown> }[])[0];
    expect([first?.python_type, first?.fields['type'], first?.fields['content']]).toEqual(['HumanMessage', 'human', 'Fix the two CVEs']);
  });

  it('the table prints Python: messages, a Pydantic model, a dataclass, an Enum, bytes, a set, a timedelta, a UUID', async () => {
    const r = await gf('threads', 'show', 'fix-1', '--sqlite', path);
    expect(r.code).toBe(0);
    const line = (channel: string) => r.out.split('\n').find((l) => l.startsWith(`value     ${channel} `)) ?? '';
    expect(line('plan')).toContain("Plan(title='patch', steps=['scan', 'fix'], budget=Decimal('12.50'), due=datetime.date(2026, 12, 24))");
    expect(line('findings')).toContain("[Finding(cve='CVE-2026-0001', severity=7.5, fixed=False), Finding(cve='CVE-2026-0002', severity=7.5, fixed=False)]");
    expect(line('priority')).toContain("Priority('high')");
    expect(line('raw')).toContain("b'\\x00\\x01binary'");
    expect(line('seen')).toContain("{'lib-a', 'lib-b'}");
    expect(line('elapsed')).toContain('datetime.timedelta(seconds=90)');
    expect(line('run_id')).toContain("UUID('12345678-1234-5678-1234-567812345678')");
    expect(line('messages')).toContain("AIMessage(content='Planning.', id='55889016-5349-493d-91fd-6992db1ff594')");
  });

  it('an interrupt waiting at fix-2 shows its value', async () => {
    const r = await gf('threads', 'show', 'fix-2', '--sqlite', path, '--json');
    expect((JSON.parse(r.out) as ThreadState).interrupts).toEqual([{ id: '1e9abe551d238fadcd023f44be4ef00c', value: { question: 'apply the fix?', findings: 2 } }]);
  });
});
