// A collapsible JSON tree: objects and arrays as native <details> (keyboard
// operable, announced as expandable), scalars inline, long containers shown
// a slice at a time, and a copy button for the whole value.
import { useState } from 'react';
import type { ThreadJson } from '../../core/contract/threads';
import { formatCount, plural } from '../format';

/** Children of one container shown before "Show more". */
export const JSON_TREE_SLICE = 100;

/** A scalar as JSON text (strings quoted, as JSON writes them). */
function scalarText(v: ThreadJson): string {
  return JSON.stringify(v) ?? 'null';
}

/** One line's summary of a container: `{3 keys}`, `[12 items]`. */
function containerSummary(v: ThreadJson): string {
  if (Array.isArray(v)) return `[${formatCount(v.length)} ${plural(v.length, 'item', 'items')}]`;
  const n = Object.keys(v as object).length;
  return `{${formatCount(n)} ${plural(n, 'key', 'keys')}}`;
}

const isContainer = (v: ThreadJson): v is readonly ThreadJson[] | { readonly [key: string]: ThreadJson } => v !== null && typeof v === 'object';

function Node({ name, value, open }: { readonly name: string; readonly value: ThreadJson; readonly open: boolean }) {
  const [shown, setShown] = useState(JSON_TREE_SLICE);
  if (!isContainer(value)) {
    return (
      <li className="json-leaf">
        <span className="json-key">{name}</span>: <span className={`json-${value === null ? 'null' : typeof value} mono`}>{scalarText(value)}</span>
      </li>
    );
  }
  const entries: readonly (readonly [string, ThreadJson])[] = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return (
    <li className="json-node">
      <details open={open}>
        <summary>
          <span className="json-key">{name}</span> <span className="muted small">{containerSummary(value)}</span>
        </summary>
        <ul className="json-tree">
          {entries.slice(0, shown).map(([k, v]) => <Node key={k} name={k} value={v} open={false} />)}
        </ul>
        {entries.length > shown && (
          <button type="button" className="link small" onClick={() => setShown((n) => n + JSON_TREE_SLICE)}>
            Show {formatCount(Math.min(JSON_TREE_SLICE, entries.length - shown))} more of {formatCount(entries.length - shown)}
          </button>
        )}
      </details>
    </li>
  );
}

/** A labelled, collapsible JSON value with a copy button (copies the value as indented JSON). */
export function JsonTree({ label, value, testId, open = true }: { readonly label: string; readonly value: ThreadJson; readonly testId?: string; readonly open?: boolean }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () => {
    // The clipboard needs a secure context and permission; a refusal is said, not thrown.
    void navigator.clipboard.writeText(JSON.stringify(value, null, 2)).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    );
  };
  return (
    <div className="json-view" data-testid={testId}>
      <div className="row-actions">
        <button type="button" className="copy" onClick={copy} aria-label={`Copy ${label} as JSON`}>Copy JSON</button>
        <span className="muted small" role="status">{copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'The clipboard refused; select the text instead.' : ''}</span>
      </div>
      <ul className="json-tree" aria-label={label}>
        <Node name={label} value={value} open={open} />
      </ul>
    </div>
  );
}
