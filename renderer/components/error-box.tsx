// An engine error shown with its code and what to do (never a blank screen).
import type { ShownError } from '../errors-text';

/** Shows a GF error: code, message, next step. */
export function ErrorBox({ error, testId = 'error' }: { readonly error: ShownError; readonly testId?: string }) {
  return (
    <div className="error-box" role="alert" data-testid={testId}>
      <p>
        <strong className="mono" data-testid={`${testId}-code`}>{error.code}</strong> {error.message}
      </p>
      <p className="error-action">{error.action}</p>
    </div>
  );
}
