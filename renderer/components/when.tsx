// A timestamp as people read it: local time and a relative form, with the
// exact UTC microsecond value on hover (core/contract/format.ts is the rule).
import { useEffect, useState } from 'react';
import { readableMicros, readableTime, type ReadableTime } from '../format';

/** The current time, re-read every 30 s so "3 minutes ago" stays true while a screen is open. */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function Readable({ t, testId }: { t: ReadableTime; testId: string | undefined }) {
  return (
    <time dateTime={t.exact} title={`${t.exact} (UTC)`} data-testid={testId} data-exact={t.exact} className="when">
      {t.local} <span className="muted">· {t.relative}</span>
    </time>
  );
}

/** An ISO-8601 timestamp (engine microseconds or LangGraph milliseconds); text that is not one is shown as it is. */
export function When({ iso, testId }: { iso: string | null; testId?: string }) {
  const now = useNow();
  if (iso === null) return <span className="muted">—</span>;
  const t = readableTime(iso, now);
  return t === null ? <span data-testid={testId}>{iso}</span> : <Readable t={t} testId={testId} />;
}

/** Integer UTC microseconds (a receipt's `committed_at`). */
export function WhenMicros({ us, testId }: { us: number | bigint | null; testId?: string }) {
  const now = useNow();
  if (us === null) return <span className="muted">—</span>;
  return <Readable t={readableMicros(us, now)} testId={testId} />;
}
