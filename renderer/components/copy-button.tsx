// A button that copies a value to the clipboard and says whether it did
// (shared by the diff's record ids and the ledgers' chain heads).
import { useState } from 'react';

/** A button that copies `text` to the clipboard and says whether it did. */
export function CopyButton({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [said, setSaid] = useState<string>('');
  return (
    <span className="copy">
      <button
        type="button"
        data-testid={testId}
        onClick={() => {
          setSaid('');
          navigator.clipboard.writeText(text).then(
            () => setSaid('Copied.'),
            () => setSaid('Not copied: the clipboard is not available here.'),
          );
        }}
      >
        {label}
      </button>
      <span role="status" className="muted small">{said}</span>
    </span>
  );
}
