// The Python LangGraph msgpack decoder, tested against the extension layer as upstream defines it
// (langchain-ai/langgraph libs/checkpoint/langgraph/checkpoint/serde/jsonplus.py at f09cfe8: `_msgpack_default`
// writes each type as ext(code, packb((module, name, payload[, method]))); `_create_msgpack_ext_hook` reads it).
// Each vector below is built the way `_msgpack_default` builds it, with @msgpack/msgpack's encoder.
import { encode, ExtData } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodePythonMsgpack, loadsPythonTyped, PY_EXT, PY_MAX_DEPTH, PythonDecodeError, PythonValue, unreadableParts } from '../../../../core/langgraph/python-serde';
import { toThreadJson, typeOfValue } from '../../../../core/langgraph/thread-json';

const ext = (code: number, payload: unknown): ExtData => new ExtData(code, encode(payload));
const json = (v: unknown): unknown => toThreadJson(v);
const roundTrip = (v: unknown): unknown => json(decodePythonMsgpack(encode(v)));

function problemOf(run: () => unknown): string {
  try {
    run();
    return 'none';
  } catch (e) {
    return e instanceof PythonDecodeError ? e.problem : `not a PythonDecodeError: ${String(e)}`;
  }
}

describe('EXT_CONSTRUCTOR_SINGLE_ARG (0): cls(arg)', () => {
  it('UUID from its hex, Decimal from its text, set / frozenset / deque from a tuple of items', () => {
    expect(roundTrip(ext(PY_EXT.CONSTRUCTOR_SINGLE_ARG, ['uuid', 'UUID', '12345678123456781234567812345678']))).toEqual({ python_type: 'UUID', python_module: 'uuid', value: '12345678-1234-5678-1234-567812345678' });
    expect(roundTrip(ext(0, ['decimal', 'Decimal', '12.50']))).toEqual({ python_type: 'Decimal', python_module: 'decimal', value: '12.50' });
    expect(roundTrip(ext(0, ['builtins', 'set', ['a', 'b']]))).toEqual({ python_type: 'set', python_module: 'builtins', items: ['a', 'b'] });
    expect(roundTrip(ext(0, ['builtins', 'frozenset', [1]]))).toEqual({ python_type: 'frozenset', python_module: 'builtins', items: [1] });
    expect(roundTrip(ext(0, ['collections', 'deque', [1, 2]]))).toEqual({ python_type: 'deque', python_module: 'collections', items: [1, 2] });
  });

  it('an Enum, SecretStr or IP address is its class (as data) and its value; nothing is imported', () => {
    const v = decodePythonMsgpack(encode(ext(0, ['os', 'system', 'rm -rf /'])));
    expect(json(v)).toEqual({ python_type: 'system', python_module: 'os', value: 'rm -rf /' });
    expect(json(decodePythonMsgpack(encode(ext(0, ['app.models', 'Priority', 'high']))))).toEqual({ python_type: 'Priority', python_module: 'app.models', value: 'high' });
    expect(typeOfValue(decodePythonMsgpack(encode(ext(0, ['ipaddress', 'IPv4Address', '10.0.0.1']))))).toBe('IPv4Address');
  });
});

describe('EXT_CONSTRUCTOR_POS_ARGS (1): cls(*args)', () => {
  it('date from (year, month, day), timedelta from (days, seconds, microseconds), Send and Path from their arguments', () => {
    expect(roundTrip(ext(1, ['datetime', 'date', [2026, 12, 24]]))).toEqual({ python_type: 'date', python_module: 'datetime', iso: '2026-12-24' });
    expect(roundTrip(ext(1, ['datetime', 'timedelta', [1, 30, 500_000]]))).toEqual({ python_type: 'timedelta', python_module: 'datetime', days: 1, seconds: 30, microseconds: 500_000, total_seconds: 86_430.5 });
    expect(roundTrip(ext(1, ['langgraph.types', 'Send', ['scan', { cve: 'CVE-1' }]]))).toEqual({ python_type: 'Send', python_module: 'langgraph.types', args: ['scan', { cve: 'CVE-1' }] });
    expect(roundTrip(ext(1, ['pathlib', 'PosixPath', ['/', 'tmp']]))).toEqual({ python_type: 'PosixPath', python_module: 'pathlib', args: ['/', 'tmp'] });
  });
});

describe('EXT_CONSTRUCTOR_KW_ARGS (2): cls(**kwargs)', () => {
  it('a dataclass or Interrupt keeps its fields (decoded, readable by name); time gets its iso text', () => {
    const i = decodePythonMsgpack(encode(ext(2, ['langgraph.types', 'Interrupt', { value: { q: 'ok?' }, id: 'abc' }])));
    expect(i).toBeInstanceOf(PythonValue);
    expect((i as PythonValue).fields).toEqual({ value: { q: 'ok?' }, id: 'abc' });
    expect(roundTrip(ext(2, ['__main__', 'Finding', { cve: 'X', severity: 7.5, fixed: false }]))).toEqual({ python_type: 'Finding', python_module: '__main__', fields: { cve: 'X', severity: 7.5, fixed: false } });
    expect((roundTrip(ext(2, ['datetime', 'time', { hour: 9, minute: 5, second: 0, microsecond: 250, tzinfo: null, fold: 0 }])) as { iso: string }).iso).toBe('09:05:00.000250');
  });
});

describe('EXT_METHOD_SINGLE_ARG (3): cls.method(arg)', () => {
  it('datetime.fromisoformat keeps the ISO text as written (offset and microseconds); another method is named', () => {
    expect(roundTrip(ext(3, ['datetime', 'datetime', '2026-12-03T14:38:10.996438+00:00', 'fromisoformat']))).toEqual({ python_type: 'datetime', python_module: 'datetime', iso: '2026-12-03T14:38:10.996438+00:00' });
    expect(roundTrip(ext(3, ['app', 'Thing', 'x', 'parse']))).toEqual({ python_type: 'Thing', python_module: 'app', method: 'parse', value: 'x' });
  });
});

describe('EXT_PYDANTIC_V1 (4) and EXT_PYDANTIC_V2 (5): model fields', () => {
  it('a v2 model (LangChain messages are v2 models) and a v1 model, with nested extension values', () => {
    const msg = roundTrip(ext(5, ['langchain_core.messages.ai', 'AIMessage', { content: 'hi', type: 'ai', id: 'm1', tool_calls: [{ name: 'search', args: { q: 'x' }, id: 'c1' }] }, 'model_validate_json']));
    expect(msg).toEqual({ python_type: 'AIMessage', python_module: 'langchain_core.messages.ai', pydantic: 'v2', fields: { content: 'hi', type: 'ai', id: 'm1', tool_calls: [{ name: 'search', args: { q: 'x' }, id: 'c1' }] } });
    expect(roundTrip(ext(4, ['app', 'Old', { when: ext(1, ['datetime', 'date', [2020, 1, 2]]) }]))).toEqual({ python_type: 'Old', python_module: 'app', pydantic: 'v1', fields: { when: { python_type: 'date', python_module: 'datetime', iso: '2020-01-02' } } });
  });
});

describe('EXT_NUMPY_ARRAY (6) and EXT_DELTA_SNAPSHOT (7)', () => {
  it('an ndarray is (dtype, shape, order, buffer) with its raw bytes; a delta snapshot wraps its value', () => {
    const buf = new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0]);
    expect(roundTrip(ext(6, ['<i4', [2], 'C', buf]))).toEqual({ python_type: 'ndarray', python_module: 'numpy', dtype: '<i4', shape: [2], order: 'C', size: 8, base64: 'AQAAAAIAAAA=' });
    expect(roundTrip(ext(7, [1, 2, 3]))).toEqual({ python_type: '_DeltaSnapshot', python_module: 'langgraph.checkpoint.serde.types', value: [1, 2, 3] });
  });
});

describe('plain msgpack as ormsgpack writes it', () => {
  it('bin is bytes; dict keys that are not strings (OPT_NON_STR_KEYS) keep their type; a big int is exact text', () => {
    expect(roundTrip(new Uint8Array([0, 1, 98]))).toEqual({ python_type: 'bytes', size: 3, base64: 'AAFi' });
    // {1: 'one', 'b': 2} as ormsgpack packs it: fixmap(2), 1, fixstr 'one', fixstr 'b', 2 (the JS encoder has no int keys).
    const m = new Uint8Array([0x82, 0x01, 0xa3, 0x6f, 0x6e, 0x65, 0xa1, 0x62, 0x02]);
    expect(json(decodePythonMsgpack(m))).toEqual({ python_type: 'dict', python_module: 'builtins', items: [[1, 'one'], ['b', 2]] });
    expect(roundTrip({ python_type: 'not a tag' })).toEqual({ python_type: 'dict', python_module: 'builtins', items: [['python_type', 'not a tag']] });
    expect(json(decodePythonMsgpack(encode(2n ** 63n + 5n, { useBigInt64: true })))).toEqual({ python_type: 'int', python_module: 'builtins', value: (2n ** 63n + 5n).toString() });
    expect(roundTrip(2 ** 40)).toBe(2 ** 40);
    expect(roundTrip({ a: [1, 2.5, null, true, 'x'] })).toEqual({ a: [1, 2.5, null, true, 'x'] });
  });
});

describe('what is not understood', () => {
  it('an unknown extension code, a malformed payload and too deep a nesting are marked in place; the rest stays readable', () => {
    const v = decodePythonMsgpack(encode({ ok: 'yes', odd: new ExtData(42, new Uint8Array([1])), bad: new ExtData(2, new Uint8Array([0xc1])), short: ext(0, ['uuid']) }));
    expect((json(v) as Record<string, unknown>)['ok']).toBe('yes');
    expect(unreadableParts(v).map((p) => [p.pointer, p.problem])).toEqual([
      ['/odd', 'unknown_extension'],
      ['/bad', 'undecodable'],
      ['/short', 'undecodable'],
    ]);
    let deep: unknown = 'bottom';
    for (let i = 0; i < PY_MAX_DEPTH + 5; i++) deep = ext(7, deep);
    expect(unreadableParts(decodePythonMsgpack(encode(deep))).map((p) => p.problem)).toEqual(['too_deep']);
  });

  it('bytes that are not one msgpack value, an unknown serializer type and a pickle', () => {
    expect(problemOf(() => decodePythonMsgpack(new Uint8Array([0x92, 0x01])))).toBe('undecodable'); // truncated array
    expect(problemOf(() => decodePythonMsgpack(new Uint8Array([0x01, 0x02])))).toBe('undecodable'); // extra bytes
    expect(problemOf(() => decodePythonMsgpack(new Uint8Array([0xdd, 0xff, 0xff, 0xff, 0xff])))).toBe('undecodable'); // 4 billion members claimed
    expect(problemOf(() => loadsPythonTyped('cbor', new Uint8Array([1])))).toBe('unknown_serializer');
    expect(unreadableParts(loadsPythonTyped('pickle', new Uint8Array([0x80, 0x04]))).map((p) => p.problem)).toEqual(['pickle']);
    expect(loadsPythonTyped('null', new Uint8Array())).toBeNull();
    expect(json(loadsPythonTyped('bytearray', new Uint8Array([255])))).toEqual({ python_type: 'bytearray', size: 1, base64: '/w==' });
    expect(json(loadsPythonTyped('json', '{"lc": 1, "type": "constructor", "id": ["x"]}'))).toEqual({ lc: 1, type: 'constructor', id: ['x'] });
  });
});
