// Python values as a Python user reads them (the CLI table and the state inspector share this text).
import { describe, expect, it } from 'vitest';
import { hasPythonValue, pythonMessage, pythonRepr, threadValueText } from '../../../../core/contract/python-values';
import type { ThreadJson } from '../../../../core/contract/threads';
import { jsonLine } from '../../../../renderer/screens/threads-common';

const msg = (cls: string, type: string, fields: Record<string, ThreadJson>): ThreadJson => ({ python_type: cls, python_module: `langchain_core.messages.${type}`, pydantic: 'v2', fields: { type, ...fields } });

describe('pythonRepr', () => {
  it('prints each documented shape as Python does', () => {
    expect(pythonRepr(null)).toBe('None');
    expect(pythonRepr([true, false, 1.5, "it's"])).toBe(`[True, False, 1.5, "it's"]`);
    expect(pythonRepr({ a: 'x\n' })).toBe("{'a': 'x\\n'}");
    expect(pythonRepr({ python_type: 'bytes', size: 3, base64: 'AAFi' })).toBe("b'\\x00\\x01b'");
    expect(pythonRepr({ python_type: 'date', python_module: 'datetime', iso: '2026-12-04' })).toBe('datetime.date(2026, 12, 4)');
    expect(pythonRepr({ python_type: 'timedelta', python_module: 'datetime', days: 1, seconds: 0, microseconds: 5, total_seconds: 86400.000005 })).toBe('datetime.timedelta(days=1, microseconds=5)');
    expect(pythonRepr({ python_type: 'set', python_module: 'builtins', items: [] })).toBe('set()');
    expect(pythonRepr({ python_type: 'dict', python_module: 'builtins', items: [[1, 'one']] })).toBe("{1: 'one'}");
    expect(pythonRepr({ python_type: 'Priority', python_module: 'app', value: 'high' })).toBe("Priority('high')");
    expect(pythonRepr({ python_type: 'Send', python_module: 'langgraph.types', args: ['scan', { cve: 'X' }] })).toBe("Send('scan', {'cve': 'X'})");
    expect(pythonRepr({ python_type: 'Finding', python_module: 'app', fields: { cve: 'X', fixed: false } })).toBe("Finding(cve='X', fixed=False)");
    expect(pythonRepr({ python_type: 'unreadable', problem: 'unknown_extension', detail: 'msgpack extension code 42' })).toBe('<not readable: msgpack extension code 42>');
  });

  it('a message shows its content, tool calls and id, leaving empty fields out', () => {
    const ai = msg('AIMessage', 'ai', { content: '', tool_calls: [{ name: 'search', args: { q: 'x' }, id: 'c1' }], id: 'm1', name: null, additional_kwargs: {} });
    expect(pythonRepr(ai)).toBe("AIMessage(content='', tool_calls=[{'name': 'search', 'args': {'q': 'x'}, 'id': 'c1'}], id='m1')");
    expect(pythonMessage(ai)).toEqual({ python_type: 'AIMessage', role: 'ai', content: '', id: 'm1', name: null, tool_calls: [{ name: 'search', args: { q: 'x' }, id: 'c1' }], tool_call_id: null });
    expect(pythonMessage({ python_type: 'Plan', python_module: 'app', fields: { type: 'x' } })).toBeNull();
  });

  it('plain JSON (a LangGraph.js value) stays JSON', () => {
    expect(hasPythonValue({ a: [1, { b: 2 }] })).toBe(false);
    expect(threadValueText({ a: 1 })).toBe('{"a":1}');
    expect(jsonLine([1, 2])).toBe('[1,2]');
    expect(jsonLine([{ python_type: 'UUID', python_module: 'uuid', value: 'u' }])).toBe("[UUID('u')]");
  });
});
