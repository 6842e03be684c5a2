// Progress of a write that may take a while (a revert at 200k records takes
// seconds): an indeterminate bar, the time elapsed, and a cancel button when
// the operation can be cancelled (otherwise a sentence saying why not).
import { useEffect, useState } from 'react';

/** Shown while a write runs; the elapsed seconds tick once the write passed one second. */
export function WriteProgress({ label, text, note, onCancel }: { label: string; text: string; note?: string; onCancel?: () => void }) {
  const [started] = useState(() => Date.now());
  const [now, setNow] = useState(started);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, []);
  const seconds = (now - started) / 1000;
  return (
    <div className="write-progress" role="status" data-testid="write-progress">
      <progress aria-label={label} /> {text}…{seconds >= 1 && <span className="muted" data-testid="write-elapsed"> {seconds.toFixed(1)} s</span>}
      {onCancel !== undefined ? (
        <button type="button" onClick={onCancel} data-testid="write-cancel">Cancel</button>
      ) : (
        note !== undefined && <span className="muted small"> {note}</span>
      )}
    </div>
  );
}
