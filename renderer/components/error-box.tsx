// An engine error shown with its code and what to do (never a blank screen).
import type { ShownError } from '../errors-text';

/** The message as a sentence (capitalised): plain language first, the code after it. */
function sentence(message: string): string {
  return message === '' ? message : message[0]!.toUpperCase() + message.slice(1);
}

/** Shows an engine error: the message in plain language, its code second, then the next step. */
export function ErrorBox({ error, testId = 'error' }: { readonly error: ShownError; readonly testId?: string }) {
  return (
    <div className="error-box" role="alert" data-testid={testId}>
      <p>
        <span data-testid={`${testId}-message`}>{sentence(error.message)}</span> <span className="mono muted small" data-testid={`${testId}-code`}>{error.code}</span>
      </p>
      <p className="error-action">{error.action}</p>
    </div>
  );
}
