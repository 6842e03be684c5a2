// Python values (PythonValueJson) as a Python user reads them: the text the
// CLI tables print and the state inspector shows, and the reading of a
// LangChain message. Browser-safe.
import type { PythonValueJson, ThreadJson } from './threads';

type Obj = { readonly [key: string]: ThreadJson };
const isObj = (v: ThreadJson | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True for the JSON form of a Python value (an object whose `python_type` names its type). */
export function isPythonValue(v: ThreadJson | undefined): v is Obj & PythonValueJson {
  return isObj(v) && typeof v['python_type'] === 'string';
}

/** True when a value holds a Python value anywhere (then it is shown as Python, else as JSON). */
export function hasPythonValue(v: ThreadJson, depth = 0): boolean {
  if (depth > 64) return false;
  if (isPythonValue(v)) return true;
  if (Array.isArray(v)) return v.some((x) => hasPythonValue(x as ThreadJson, depth + 1));
  if (isObj(v)) return Object.values(v).some((x) => hasPythonValue(x, depth + 1));
  return false;
}

/** A LangChain message, read from its Pydantic fields. */
export interface PythonMessage {
  /** The class (`HumanMessage`, `AIMessage`, `ToolMessage`, …). */
  readonly python_type: string;
  /** LangChain's message type: `human`, `ai`, `system`, `tool`, … */
  readonly role: string;
  readonly content: ThreadJson;
  readonly id: string | null;
  readonly name: string | null;
  /** An AI message's tool calls (`name`, `args`, `id`), else empty. */
  readonly tool_calls: readonly ThreadJson[];
  /** A tool message's `tool_call_id`, else null. */
  readonly tool_call_id: string | null;
}

/** The message a value is, when it is a LangChain message (a Pydantic model of `langchain_core.messages`), else null. */
export function pythonMessage(v: ThreadJson | undefined): PythonMessage | null {
  if (!isPythonValue(v) || typeof v.python_module !== 'string' || !v.python_module.startsWith('langchain_core.messages')) return null;
  const f = v.fields;
  if (f === undefined || typeof f['type'] !== 'string') return null;
  const str = (x: ThreadJson | undefined): string | null => (typeof x === 'string' ? x : null);
  return {
    python_type: v.python_type,
    role: f['type'],
    content: f['content'] ?? '',
    id: str(f['id']),
    name: str(f['name']),
    tool_calls: Array.isArray(f['tool_calls']) ? (f['tool_calls'] as ThreadJson[]) : [],
    tool_call_id: str(f['tool_call_id']),
  };
}

/** Python's `repr` of a string (single quotes unless the text has some and no double quotes). */
function strRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${q}${out}${q}`;
}

/** How many bytes of a bytes value its text shows before "…". */
const BYTES_SHOWN = 48;

function bytesRepr(base64: string, size: number, prefix: string): string {
  let raw: string;
  try {
    raw = atob(base64);
  } catch {
    return `<${size} bytes>`;
  }
  let out = '';
  for (let i = 0; i < Math.min(raw.length, BYTES_SHOWN); i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x5c) out += '\\\\';
    else if (c === 0x27) out += "\\'";
    else if (c >= 0x20 && c < 0x7f) out += raw[i];
    else if (c === 0x0a) out += '\\n';
    else out += `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return `${prefix}b'${out}${raw.length > BYTES_SHOWN ? '…' : ''}'${raw.length > BYTES_SHOWN ? ` (${size} bytes)` : ''}`;
}

function timedeltaRepr(v: PythonValueJson): string {
  const parts: string[] = [];
  if (v.days !== undefined && v.days !== 0) parts.push(`days=${v.days}`);
  if (v.seconds !== undefined && v.seconds !== 0) parts.push(`seconds=${v.seconds}`);
  if (v.microseconds !== undefined && v.microseconds !== 0) parts.push(`microseconds=${v.microseconds}`);
  return `datetime.timedelta(${parts.join(', ')})`;
}

const MESSAGE_FIELDS = ['content', 'tool_calls', 'tool_call_id', 'name', 'id'] as const;

/**
 * A value as Python prints it (`repr`), for one line of a table or the inspector.
 *
 * A class is shown by name with its arguments (`Priority('high')`,
 * `Finding(cve='CVE-1', severity=7.5, fixed=False)`); the stored data gives
 * an Enum's value, not its member name, so an Enum reads as the call that
 * rebuilds it. A LangChain message shows its content, tool calls, name and
 * id (empty fields left out). Lists and dicts as Python writes them.
 */
export function pythonRepr(v: ThreadJson, depth = 0): string {
  if (depth > 32) return '…';
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return strRepr(v);
  const r = (x: ThreadJson | undefined): string => pythonRepr(x ?? null, depth + 1);
  if (Array.isArray(v)) return `[${v.map((x) => r(x as ThreadJson)).join(', ')}]`;
  if (!isPythonValue(v)) return `{${Object.entries(v).map(([k, x]) => `${strRepr(k)}: ${r(x)}`).join(', ')}}`;
  const t = v.python_type;
  const items = (v.items ?? []) as ThreadJson[];
  switch (t) {
    case 'unreadable':
      return `<not readable: ${v.detail ?? v.problem ?? ''}>`;
    case 'bytes':
      return bytesRepr(v.base64 ?? '', v.size ?? 0, '');
    case 'bytearray':
      return `bytearray(${bytesRepr(v.base64 ?? '', v.size ?? 0, '')})`;
    case 'int':
      return typeof v.value === 'string' ? v.value : r(v.value);
    case 'dict':
      if (v.python_module === 'builtins') return `{${items.map((p) => (Array.isArray(p) ? `${r(p[0] as ThreadJson)}: ${r(p[1] as ThreadJson)}` : r(p))).join(', ')}}`;
      break;
    case 'set':
      if (v.python_module === 'builtins') return items.length === 0 ? 'set()' : `{${items.map((x) => r(x)).join(', ')}}`;
      break;
    case 'frozenset':
      if (v.python_module === 'builtins') return `frozenset({${items.map((x) => r(x)).join(', ')}})`;
      break;
    case 'deque':
      if (v.python_module === 'collections') return `deque([${items.map((x) => r(x)).join(', ')}])`;
      break;
    case 'date':
    case 'datetime':
      if (v.python_module === 'datetime' && typeof v.iso === 'string') return t === 'date' ? `datetime.date(${v.iso.split('-').map((n) => String(Number(n))).join(', ')})` : `datetime.datetime.fromisoformat(${strRepr(v.iso)})`;
      break;
    case 'time':
      if (v.python_module === 'datetime' && typeof v.iso === 'string') return `datetime.time.fromisoformat(${strRepr(v.iso)})`;
      break;
    case 'timedelta':
      if (v.python_module === 'datetime') return timedeltaRepr(v);
      break;
    case 'UUID':
    case 'Decimal':
      return `${t}(${r(v.value)})`;
    case 'ndarray':
      return `numpy.ndarray(dtype=${strRepr(v.dtype ?? '')}, shape=(${(v.shape ?? []).join(', ')}${(v.shape ?? []).length === 1 ? ',' : ''}), ${v.size ?? 0} bytes)`;
    default:
      break;
  }
  const message = pythonMessage(v);
  if (message !== null && v.fields !== undefined) {
    const f = v.fields;
    const shown = MESSAGE_FIELDS.filter((k) => f[k] !== undefined && f[k] !== null && !(Array.isArray(f[k]) && (f[k] as ThreadJson[]).length === 0));
    return `${t}(${shown.map((k) => `${k}=${r(f[k])}`).join(', ')})`;
  }
  if (v.fields !== undefined) return `${t}(${Object.entries(v.fields).map(([k, x]) => `${k}=${r(x)}`).join(', ')})`;
  if (v.args !== undefined) return `${t}(${v.args.map((x) => r(x)).join(', ')})`;
  if (v.method !== undefined) return `${t}.${v.method}(${r(v.value)})`;
  if (v.items !== undefined) return `${t}(${r(v.items as ThreadJson)})`;
  return `${t}(${v.value === undefined ? '' : r(v.value)})`;
}

/** A value's one-line text: Python's `repr` when it holds Python values, else compact JSON. */
export function threadValueText(v: ThreadJson): string {
  if (typeof v === 'string') return v;
  return hasPythonValue(v) ? pythonRepr(v) : (JSON.stringify(v) ?? 'null');
}
