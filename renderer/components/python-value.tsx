// A value Python LangGraph wrote, as a Python user reads it: a list of
// LangChain messages as messages (role, content, tool calls; ids on the
// technical toggle), anything else as Python prints it (`repr`). The JSON
// form stays one toggle away (the JSON tree beside it).
import type { ThreadJson } from '../../core/contract/threads';
import { pythonMessage, pythonRepr, threadValueText, type PythonMessage } from '../../core/contract/python-values';

function contentText(content: ThreadJson): string {
  return typeof content === 'string' ? content : threadValueText(content);
}

function Message({ m, technical }: { readonly m: PythonMessage; readonly technical: boolean }) {
  return (
    <li className="message" data-testid="python-message">
      <span className="badge" data-testid="python-message-role">{m.role}</span>
      {m.name !== null && <span className="muted small"> {m.name}</span>}{' '}
      <span data-testid="python-message-content">{contentText(m.content)}</span>
      {m.tool_calls.length > 0 && (
        <ul className="small" aria-label="tool calls">
          {m.tool_calls.map((c, i) => <li key={i} className="mono">{pythonRepr(c)}</li>)}
        </ul>
      )}
      {m.tool_call_id !== null && <span className="muted small"> (answers tool call <span className="mono">{m.tool_call_id}</span>)</span>}
      {technical && m.id !== null && <span className="muted small mono"> {m.python_type} · {m.id}</span>}
    </li>
  );
}

/** The Python reading of a channel value: messages listed, or its `repr` on one line. */
export function PythonValueView({ value, technical, testId }: { readonly value: ThreadJson; readonly technical: boolean; readonly testId?: string }) {
  const messages = Array.isArray(value) ? value.map((v) => pythonMessage(v as ThreadJson)) : [pythonMessage(value)];
  if (messages.length > 0 && messages.every((m): m is PythonMessage => m !== null)) {
    return (
      <ol className="messages" data-testid={testId}>
        {messages.map((m, i) => <Message key={m.id ?? i} m={m} technical={technical} />)}
      </ol>
    );
  }
  return <code className="mono python-repr" data-testid={testId}>{pythonRepr(value)}</code>;
}
