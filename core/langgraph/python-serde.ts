// Reads what Python LangGraph's JsonPlusSerializer writes (`dumps_typed`):
// type `msgpack` with LangGraph's extension types, and the plain types
// `null`, `bytes`, `bytearray` and `json`. The wire format is @msgpack/msgpack's;
// this module is only LangGraph's extension layer, written from upstream's
// definition (langgraph/checkpoint/serde/jsonplus.py: `_msgpack_default` and
// `_create_msgpack_ext_hook`). It never executes, imports or resolves anything
// the data names: a Python class is data (module, name, arguments).
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { decode, DecodeError, ExtData, ExtensionCodec } from '@msgpack/msgpack';
import type { PythonValueJson, PythonValueProblem, ThreadJson } from '../contract/threads';

/** LangGraph's msgpack extension codes (jsonplus.py `EXT_*`). */
export const PY_EXT = {
  CONSTRUCTOR_SINGLE_ARG: 0,
  CONSTRUCTOR_POS_ARGS: 1,
  CONSTRUCTOR_KW_ARGS: 2,
  METHOD_SINGLE_ARG: 3,
  PYDANTIC_V1: 4,
  PYDANTIC_V2: 5,
  NUMPY_ARRAY: 6,
  DELTA_SNAPSHOT: 7,
} as const;

/** Deepest nesting of lists, dicts and extension values a decoded value may have. */
export const PY_MAX_DEPTH = 64;

/** Why a stored value (or part of one) was not understood. */
export type PythonProblem = PythonValueProblem;

/** A stored value this decoder does not understand, with what was not understood (a plain sentence fragment). */
export class PythonDecodeError extends Error {
  constructor(
    readonly problem: PythonProblem,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'PythonDecodeError';
  }
}

/**
 * A Python value that is not a plain list, dict, string, number, bool or None.
 *
 * `json` is its stable JSON form (see `PythonValueJson` in the contract);
 * `fields` holds a keyword-constructed or Pydantic object's decoded fields
 * (an `Interrupt`'s `value` and `id` are read from there).
 */
export class PythonValue {
  constructor(
    readonly pythonType: string,
    readonly pythonModule: string | null,
    readonly json: PythonValueJson & ThreadJson,
    readonly fields: Readonly<Record<string, unknown>> | null = null,
  ) {}

  /** True for a part of the value that was not understood. */
  get unreadable(): boolean {
    return this.json.python_type === 'unreadable';
  }
}

/** The marker left where a part of a value was not understood (the rest of the value stays readable). */
export function unreadableValue(problem: PythonProblem, detail: string): PythonValue {
  return new PythonValue('unreadable', null, { python_type: 'unreadable', problem, detail });
}

/** A JSON form of a decoded value (plain data passes through, Python values give their tagged form). */
function jsonOf(v: unknown): ThreadJson {
  if (v instanceof PythonValue) return v.json;
  if (Array.isArray(v)) return v.map(jsonOf);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, ThreadJson> = {};
    for (const [k, x] of Object.entries(v)) out[k] = jsonOf(x);
    return out;
  }
  return v as string | number | boolean | null;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

function bytesValue(bytes: Uint8Array, type: 'bytes' | 'bytearray' = 'bytes'): PythonValue {
  return new PythonValue(type, 'builtins', { python_type: type, size: bytes.byteLength, base64: b64(bytes) });
}

/** The marker key of a dict key that is not a string (`OPT_NON_STR_KEYS`): kept aside so the dict keeps its real keys. */
const KEY_MARK = '\u0000gf-key:';

interface Frame {
  /** Non-string dict keys seen while decoding, by marker. */
  readonly keys: unknown[];
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** `(module, name, …)`: the head of every constructor-style payload; anything else is undecodable. */
function head(tup: unknown, code: number, arity: number): [string, string, ...unknown[]] {
  if (!Array.isArray(tup) || tup.length < arity || typeof tup[0] !== 'string' || typeof tup[1] !== 'string') {
    throw new PythonDecodeError('undecodable', `extension ${code} does not hold (module, name, …) as LangGraph writes it`);
  }
  return tup as [string, string, ...unknown[]];
}

/** A keyword payload (`dict`) as a record; a dict with non-string keys is undecodable here (Python calls `cls(**kwargs)`). */
function kwargsOf(v: unknown, code: number): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof PythonValue) {
    throw new PythonDecodeError('undecodable', `extension ${code} does not hold keyword arguments as LangGraph writes them`);
  }
  return v as Record<string, unknown>;
}

/** EXT_CONSTRUCTOR_SINGLE_ARG: `cls(arg)` (UUID, Decimal, set, frozenset, deque, Enum, SecretStr, ipaddress, ZoneInfo). */
function singleArg(module: string, name: string, arg: unknown): PythonValue {
  if (module === 'uuid' && name === 'UUID' && typeof arg === 'string' && /^[0-9a-f]{32}$/i.test(arg)) {
    const h = arg.toLowerCase();
    return new PythonValue(name, module, { python_type: 'UUID', python_module: module, value: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` });
  }
  if (module === 'decimal' && name === 'Decimal' && typeof arg === 'string') return new PythonValue(name, module, { python_type: 'Decimal', python_module: module, value: arg });
  if ((module === 'builtins' && (name === 'set' || name === 'frozenset')) || (module === 'collections' && name === 'deque')) {
    if (Array.isArray(arg)) return new PythonValue(name, module, { python_type: name, python_module: module, items: arg.map(jsonOf) });
  }
  return new PythonValue(name, module, { python_type: name, python_module: module, value: jsonOf(arg) });
}

/** EXT_CONSTRUCTOR_POS_ARGS: `cls(*args)` (date, timedelta, timezone, Path, re.compile, Send). */
function positional(module: string, name: string, args: unknown): PythonValue {
  if (!Array.isArray(args)) throw new PythonDecodeError('undecodable', `extension ${PY_EXT.CONSTRUCTOR_POS_ARGS} (${module}.${name}) does not hold a list of arguments`);
  if (module === 'datetime' && name === 'date' && args.length === 3 && args.every(isInt)) {
    const [y, m, d] = args as number[];
    return new PythonValue(name, module, { python_type: 'date', python_module: module, iso: `${String(y).padStart(4, '0')}-${pad2(m as number)}-${pad2(d as number)}` });
  }
  if (module === 'datetime' && name === 'timedelta' && args.length === 3 && args.every(isInt)) {
    const [days, seconds, microseconds] = args as [number, number, number];
    const total = days * 86_400 + seconds + microseconds / 1e6;
    return new PythonValue(name, module, { python_type: 'timedelta', python_module: module, days, seconds, microseconds, total_seconds: total });
  }
  return new PythonValue(name, module, { python_type: name, python_module: module, args: args.map(jsonOf) });
}

/** EXT_CONSTRUCTOR_KW_ARGS: `cls(**kwargs)` (dataclasses, namedtuples, `time`, `Item`, LangGraph's `Interrupt`). */
function keywords(module: string, name: string, kwargs: Record<string, unknown>): PythonValue {
  const fields: Record<string, ThreadJson> = {};
  for (const [k, v] of Object.entries(kwargs)) fields[k] = jsonOf(v);
  if (module === 'datetime' && name === 'time' && isInt(kwargs['hour']) && isInt(kwargs['minute']) && isInt(kwargs['second']) && isInt(kwargs['microsecond'])) {
    const us = kwargs['microsecond'] === 0 ? '' : `.${String(kwargs['microsecond']).padStart(6, '0')}`;
    return new PythonValue(name, module, { python_type: 'time', python_module: module, iso: `${pad2(kwargs['hour'])}:${pad2(kwargs['minute'])}:${pad2(kwargs['second'])}${us}`, fields }, kwargs);
  }
  return new PythonValue(name, module, { python_type: name, python_module: module, fields }, kwargs);
}

/** EXT_METHOD_SINGLE_ARG: `cls.method(arg)` (`datetime.fromisoformat`). */
function method(module: string, name: string, arg: unknown, meth: unknown): PythonValue {
  if (typeof meth !== 'string') throw new PythonDecodeError('undecodable', `extension ${PY_EXT.METHOD_SINGLE_ARG} (${module}.${name}) does not name its method`);
  if (module === 'datetime' && name === 'datetime' && meth === 'fromisoformat' && typeof arg === 'string') {
    return new PythonValue(name, module, { python_type: 'datetime', python_module: module, iso: arg });
  }
  return new PythonValue(name, module, { python_type: name, python_module: module, method: meth, value: jsonOf(arg) });
}

function pydantic(version: 'v1' | 'v2', module: string, name: string, kwargs: Record<string, unknown>): PythonValue {
  const fields: Record<string, ThreadJson> = {};
  for (const [k, v] of Object.entries(kwargs)) fields[k] = jsonOf(v);
  return new PythonValue(name, module, { python_type: name, python_module: module, pydantic: version, fields }, kwargs);
}

/** EXT_NUMPY_ARRAY: `(dtype.str, shape, order, buffer)`: the raw buffer is shown as bytes, never interpreted by guesswork. */
function numpyArray(tup: unknown): PythonValue {
  if (!Array.isArray(tup) || tup.length !== 4 || typeof tup[0] !== 'string' || !Array.isArray(tup[1]) || !tup[1].every(isInt) || (tup[2] !== 'C' && tup[2] !== 'F')) {
    throw new PythonDecodeError('undecodable', `extension ${PY_EXT.NUMPY_ARRAY} does not hold (dtype, shape, order, buffer) as LangGraph writes it`);
  }
  const buf = tup[3];
  const bytes = buf instanceof PythonValue && buf.pythonType === 'bytes' ? (buf.json as { base64: string; size: number }) : null;
  if (bytes === null) throw new PythonDecodeError('undecodable', `extension ${PY_EXT.NUMPY_ARRAY} does not hold the array's bytes`);
  return new PythonValue('ndarray', 'numpy', { python_type: 'ndarray', python_module: 'numpy', dtype: tup[0], shape: tup[1] as number[], order: tup[2], size: bytes.size, base64: bytes.base64 });
}

/** Decodes one extension payload (itself msgpack) into a Python value; failures inside become `unreadable` markers. */
function extension(code: number, data: Uint8Array, frame: Frame, depth: number): PythonValue {
  if (code < 0 || code > PY_EXT.DELTA_SNAPSHOT) return unreadableValue('unknown_extension', `msgpack extension code ${code} is not one LangGraph defines (0–7)`);
  try {
    const tup = unpack(data, frame, depth + 1);
    switch (code) {
      case PY_EXT.DELTA_SNAPSHOT:
        return new PythonValue('_DeltaSnapshot', 'langgraph.checkpoint.serde.types', { python_type: '_DeltaSnapshot', python_module: 'langgraph.checkpoint.serde.types', value: jsonOf(tup) }, { value: tup });
      case PY_EXT.CONSTRUCTOR_SINGLE_ARG: {
        const [module, name, arg] = head(tup, code, 3);
        return singleArg(module, name, arg);
      }
      case PY_EXT.CONSTRUCTOR_POS_ARGS: {
        const [module, name, args] = head(tup, code, 3);
        return positional(module, name, args);
      }
      case PY_EXT.CONSTRUCTOR_KW_ARGS: {
        const [module, name, kwargs] = head(tup, code, 3);
        return keywords(module, name, kwargsOf(kwargs, code));
      }
      case PY_EXT.METHOD_SINGLE_ARG: {
        const [module, name, arg, meth] = head(tup, code, 4);
        return method(module, name, arg, meth);
      }
      case PY_EXT.PYDANTIC_V1: {
        const [module, name, kwargs] = head(tup, code, 3);
        return pydantic('v1', module, name, kwargsOf(kwargs, code));
      }
      case PY_EXT.PYDANTIC_V2: {
        const [module, name, kwargs] = head(tup, code, 3);
        return pydantic('v2', module, name, kwargsOf(kwargs, code));
      }
      default:
        return numpyArray(tup);
    }
  } catch (e) {
    if (e instanceof PythonDecodeError) return unreadableValue(e.problem, e.detail);
    return unreadableValue('undecodable', `extension ${code} holds bytes that are not msgpack (${wireProblem(e)})`);
  }
}

/** What the wire decoder said, as a sentence fragment (its message names a byte position or a type, never data). */
function wireProblem(e: unknown): string {
  if (e instanceof DecodeError || e instanceof RangeError) return e.message.slice(0, 160);
  return e instanceof Error ? e.name : 'not decodable';
}

/** The wire decode of one buffer, then the walk that turns bins, extensions and non-string keys into Python values. */
function unpack(bytes: Uint8Array, frame: Frame, depth: number): unknown {
  const raw = decode(bytes, {
    extensionCodec: RAW_EXTENSIONS,
    useBigInt64: true,
    // No container holds more members than there are bytes left; a hostile length fails fast instead of allocating.
    maxArrayLength: bytes.byteLength,
    maxMapLength: bytes.byteLength,
    maxStrLength: bytes.byteLength,
    maxBinLength: bytes.byteLength,
    maxExtLength: bytes.byteLength,
    mapKeyConverter: (key: unknown) => {
      if (typeof key === 'string' && !key.startsWith(KEY_MARK)) return key;
      frame.keys.push(key);
      return `${KEY_MARK}${frame.keys.length - 1}`;
    },
  });
  return walk(raw, frame, depth);
}

/** Extensions are collected raw (`ExtData`) by the wire decoder and decoded by `walk`, where depth is counted. */
const RAW_EXTENSIONS = new ExtensionCodec();

function walk(v: unknown, frame: Frame, depth: number): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : new PythonValue('int', 'builtins', { python_type: 'int', python_module: 'builtins', value: v.toString() });
  if (v === null || typeof v !== 'object') return v;
  if (depth >= PY_MAX_DEPTH) return unreadableValue('too_deep', `values nest deeper than ${PY_MAX_DEPTH} levels`);
  if (v instanceof Uint8Array) return bytesValue(v.slice());
  if (v instanceof ExtData) return typeof v.data === 'function' ? unreadableValue('undecodable', `extension ${v.type} has no payload`) : extension(v.type, v.data, frame, depth);
  if (v instanceof Date) return new PythonValue('datetime', 'datetime', { python_type: 'datetime', python_module: 'datetime', iso: Number.isNaN(v.getTime()) ? '' : v.toISOString() });
  if (Array.isArray(v)) return v.map((x) => walk(x, frame, depth + 1));
  const entries = Object.entries(v as Record<string, unknown>);
  // A dict with a key that is not a string, or with a key named `python_type`, keeps its pairs (never mistaken for a tagged value).
  if (entries.some(([k]) => k.startsWith(KEY_MARK) || k === 'python_type')) {
    const items = entries.map(([k, x]) => {
      const key = k.startsWith(KEY_MARK) ? walk(frame.keys[Number(k.slice(KEY_MARK.length))], frame, depth + 1) : k;
      return [key, walk(x, frame, depth + 1)];
    });
    return new PythonValue('dict', 'builtins', { python_type: 'dict', python_module: 'builtins', items: items.map(([k, x]) => [jsonOf(k), jsonOf(x)]) });
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries) out[k] = walk(x, frame, depth + 1);
  return out;
}

/**
 * Decodes one msgpack value as JsonPlusSerializer wrote it (`loads_typed(("msgpack", data))`).
 *
 * Bytes that are not one msgpack value throw `PythonDecodeError`
 * (`undecodable`); an extension that is not understood becomes an
 * `unreadable` marker in place, so the rest of the value stays readable.
 */
export function decodePythonMsgpack(bytes: Uint8Array): unknown {
  try {
    return unpack(bytes, { keys: [] }, 0);
  } catch (e) {
    if (e instanceof PythonDecodeError) throw e;
    throw new PythonDecodeError('undecodable', `the stored msgpack value does not decode (${wireProblem(e)})`);
  }
}

/** The serializer types Python's JsonPlusSerializer writes. */
export const PYTHON_SERDE_TYPES = ['msgpack', 'null', 'bytes', 'bytearray', 'json', 'pickle'] as const;

/**
 * `loads_typed((type, data))` of JsonPlusSerializer, without anything that
 * executes: `json` is parsed as JSON (LangChain constructor records stay
 * records), `pickle` is never unpickled (an `unreadable` marker says so).
 * An unknown type throws `PythonDecodeError` (`unknown_serializer`).
 */
export function loadsPythonTyped(type: string, data: Uint8Array | string | null): unknown {
  const bytes = data === null ? new Uint8Array() : typeof data === 'string' ? new TextEncoder().encode(data) : data;
  switch (type) {
    case 'null':
      return null;
    case 'bytes':
      return bytesValue(bytes.slice());
    case 'bytearray':
      return bytesValue(bytes.slice(), 'bytearray');
    case 'msgpack':
      return decodePythonMsgpack(bytes);
    case 'json':
      try {
        return walk(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown, { keys: [] }, 0);
      } catch (e) {
        throw new PythonDecodeError('undecodable', `the stored JSON value does not parse (${e instanceof Error ? e.name : 'invalid'})`);
      }
    case 'pickle':
      return unreadableValue('pickle', 'the value is a Python pickle, which Checkpoint Studio never unpickles (unpickling runs code)');
    default:
      throw new PythonDecodeError('unknown_serializer', `the serializer type "${type.slice(0, 40)}" is not one LangGraph writes (msgpack, json, bytes, bytearray, null)`);
  }
}

/** Each `unreadable` part of a decoded value, with its JSON pointer below the value (`""` for the whole value). */
export function unreadableParts(v: unknown, pointer = '', out: { pointer: string; problem: PythonProblem; detail: string }[] = [], depth = 0): { pointer: string; problem: PythonProblem; detail: string }[] {
  if (depth > PY_MAX_DEPTH || out.length >= 20) return out;
  if (v instanceof PythonValue) {
    const j = v.json;
    if (j.python_type === 'unreadable') out.push({ pointer, problem: j.problem ?? 'undecodable', detail: j.detail ?? '' });
    else if (v.fields !== null) for (const [k, x] of Object.entries(v.fields)) unreadableParts(x, `${pointer}/${k}`, out, depth + 1);
    else scanJson(j, pointer, out, depth);
    return out;
  }
  if (Array.isArray(v)) v.forEach((x, i) => unreadableParts(x, `${pointer}/${i}`, out, depth + 1));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) unreadableParts(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, depth + 1);
  return out;
}

function scanJson(j: unknown, pointer: string, out: { pointer: string; problem: PythonProblem; detail: string }[], depth: number): void {
  if (depth > PY_MAX_DEPTH || out.length >= 20 || j === null || typeof j !== 'object') return;
  const r = j as Record<string, unknown>;
  if (r['python_type'] === 'unreadable' && typeof r['problem'] === 'string' && typeof r['detail'] === 'string') {
    out.push({ pointer, problem: r['problem'] as PythonProblem, detail: r['detail'] });
    return;
  }
  for (const [k, x] of Array.isArray(j) ? j.entries() : Object.entries(r)) scanJson(x, `${pointer}/${String(k)}`, out, depth + 1);
}

/**
 * The serializer of a source Python LangGraph wrote: reads as `loadsPythonTyped`
 * (a value that does not decode throws `PythonDecodeError`); it never writes
 * (a restore carries the stored bytes instead).
 */
export const PYTHON_SERIALIZER: SerializerProtocol = {
  loadsTyped: (type: string, data: Uint8Array | string) => Promise.resolve(loadsPythonTyped(type, data)),
  dumpsTyped: () => Promise.reject(new Error('invariant violated: the Python reader never serializes')),
};
