import { REASON_MAX_UTF8_BYTES, reasonBytes } from '../../core/contract/reasons';
import { formatCount } from '../format';

/**
 * The required "Reason" field of a guided write (workspace revert, thread restore).
 *
 * One field for both flows, so the reason's rule (the contract's
 * `reasonProblem`, 1 to 1,024 UTF-8 bytes after trimming) is shown the same
 * way everywhere: the byte count while the reason is fine, the problem once
 * the field has been touched.
 */
export function ReasonField(props: {
  /** The textarea's id (its help text is `${id}-help`). */
  readonly id: string;
  readonly reason: string;
  /** The contract's problem with the reason, or null when it is valid. */
  readonly problem: string | null;
  /** True once the user has typed in or left the field: the problem is shown only then. */
  readonly touched: boolean;
  readonly disabled: boolean;
  /** The help text's test id. */
  readonly testId: string;
  readonly onChange: (reason: string) => void;
  readonly onTouched: () => void;
}) {
  const { id, reason, problem, touched, disabled, testId, onChange, onTouched } = props;
  const shown = touched && problem !== null;
  return (
    <>
      <label htmlFor={id}>Reason (required)</label>
      <textarea id={id} rows={3} value={reason} onChange={(e) => { onChange(e.target.value); onTouched(); }} onBlur={onTouched} aria-invalid={shown} aria-describedby={`${id}-help`} disabled={disabled} />
      <p id={`${id}-help`} className={shown ? 'field-error' : 'muted small'} data-testid={testId} aria-live="polite">
        {shown ? problem : `${formatCount(reasonBytes(reason))} / ${formatCount(REASON_MAX_UTF8_BYTES)} bytes`}
      </p>
    </>
  );
}
