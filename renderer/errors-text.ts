// What to do about an engine error, by its stable code (a GF_* code or a chain error id).
import { errorCodeOf, serverUnreachable, type ErrorCode } from '../core/contract/errors';

/** An error as the UI shows it: code, message and a next step. */
export interface ShownError {
  readonly code: string;
  readonly message: string;
  readonly action: string;
}

/** A next step for every code an operation can fail with: a total record, so a new code fails the build until it has one. */
const ACTIONS: Readonly<Record<ErrorCode, string>> = {
  GF_PROJECT_CORRUPT: 'The workspace files are damaged. Restore the folder from a backup, or open another workspace.',
  GF_UNSUPPORTED_PROJECT_FORMAT: 'This workspace was written by an unsupported version. Open it with a matching Checkpoint Studio version.',
  GF_PROJECT_UNINITIALIZED: 'The folder has no published generation yet. Publish one with gf publish, or open another workspace.',
  GF_WRITER_BUSY: 'Another writer holds the workspace. Wait for it to finish, then try again; nothing was changed.',
  GF_CHECKPOINT_EXISTS: 'Choose another name, or delete the existing checkpoint first.',
  GF_CHECKPOINT_NOT_FOUND: 'The checkpoint no longer exists. Refresh the history.',
  GF_CHECKPOINT_REGISTRY_CORRUPT: 'The checkpoint registry is damaged. Restore it from a backup.',
  GF_VALIDATION: 'Correct the input and try again.',
  GF_CANCELLED: 'The operation was cancelled; nothing is shown from it.',
  GF_IO: 'The engine could not read or write a file. Check the folder (space, permissions), then retry.',
  GF_NO_WORKSPACE: 'Choose a folder that holds a workspace (gf demo create DIR makes a demo one).',
  GF_STALE_PREVIEW: 'Something changed since you previewed; nothing was written. Review the new preview and confirm again.',
  GF_STORE_UNREACHABLE: 'Start the database server or check its host and port, then retry.',
  GF_SERVER_UNREACHABLE: 'Restart the server (npm start or gf serve) and open the link it prints; check History before repeating a change.',
  GF_SESSION_EXPIRED: 'Open the link printed at start (by npm start or gf serve); it carries the session token.',
  GF_PROTOCOL: 'The server is a different version. Restart it and reload.',
  GF_INTERNAL: 'This is a defect in Checkpoint Studio. Retry; if it persists, report it.',
  GF_DESKTOP_ONLY: 'Type the workspace folder\'s path instead; the folder dialog is in the desktop app.',
  GF_PAGE_SNAPSHOT_GONE: 'The data changed while paging. Reload the view.',
  GF_PAGE_INVALID: 'Reload the view.',
  GF_IDEMPOTENCY_CONFLICT: 'The same request id was used for a different request. Start again.',
  GF_RESOURCE_LIMIT: 'The request is too large. Narrow the scope.',
  GF_CHAIN_STORE: 'The ledger store could not be read. Check the workspace chain folder.',
  GF_CANONICAL_ARROW_TYPE: 'The records use an Arrow type the canonical format does not allow. Convert the column, then publish again.',
  GF_CANONICAL_ENCODING: 'A value is not in the canonical encoding. Correct the record, then publish again.',
  GF_CANONICAL_LIMIT: 'A value exceeds a canonical-format limit. Shorten it, then publish again.',
  GF_CANONICAL_NULLABILITY: 'A required field is empty. Fill it in, then publish again.',
  GF_CANONICAL_TEMPORAL: 'A time value is not a valid UTC timestamp. Correct it, then publish again.',
  GF_CANONICAL_UTF8: 'A text value is not valid UTF-8. Correct it, then publish again.',
  GF_CANONICAL_DOMAIN: 'The fingerprint domain is not one this version knows. Check the record family and version.',
  GF_READ_ONLY_VIEW: 'A checkpoint view is read-only. Make the change on the current workspace instead.',
  GF_SCHEMA_MISMATCH: 'The two sides hold different versions of a record family and cannot be compared record by record. Compare checkpoints of the same version.',
  GF_TRANSACTION_FAILED: 'The change did not complete and nothing was published. Check the workspace with gf doctor, then retry.',
  GF_CHECKPOINT_UNREADABLE: 'This stored LangGraph value cannot be read by this version. The message names the value; the rest of the thread is still readable.',
  'workflows.checkpoint_payload_too_large': 'The ledger event is larger than the store allows. Record a smaller payload.',
  'workflows.checkpoint_boundary_violation': 'Only an event at a semantic boundary of the workflow can be a checkpoint. Append it at its boundary.',
  'workflows.illegal_transition': 'This transition is not allowed from the workflow\'s current state.',
  'workflows.invalid_transition_event': 'The transition event is not well formed. Correct it and append again.',
  'workflows.invalid_workflow_id': 'A workflow id is 1 to 128 letters, digits, dots, colons, dashes or underscores. Correct the id.',
  'workflows.checkpoint_chain_mismatch': 'The ledger\'s hash chain is broken: a row does not follow the one before. Restore the ledger from a backup.',
  'workflows.checkpoint_torn_write': 'The ledger ends with a partly written row. Restore the chain folder from a backup; rows before it are intact.',
  'workflows.duplicate_transition_id': 'A transition with this id is already in the ledger; nothing was appended.',
  'workflows.workflow_not_found': 'This workspace has no ledger for that workflow. Refresh the ledgers.',
  'workflows.checkpoint_head_unexpected': 'The ledger ends at a different head than expected: it may have been truncated.',
  'workflows.checkpoint_store_corrupt': 'The ledger store holds rows it cannot have written. Restore the chain folder from a backup.',
  'workflows.checkpoint_store_closed': 'The ledger store was closed. Reopen the workspace.',
};

/** The next step the UI shows for one error code. */
export function actionFor(code: ErrorCode): string {
  return ACTIONS[code];
}

/**
 * Converts anything thrown by `invoke` into what the UI shows.
 *
 * A value without a contract code is never shown as `GF_IO` (that code
 * means a file could not be read or written): a rejected `fetch` (a
 * `TypeError`, the server is gone) is `GF_SERVER_UNREACHABLE`, anything else
 * `GF_INTERNAL`, and its own text is not shown (it may hold anything).
 */
export function showError(e: unknown): ShownError {
  const code = errorCodeOf(e);
  if (code !== null) {
    const message = e instanceof Error ? e.message.replace(/^(GF_[A-Z0-9_]+|workflows\.[a-z_]+): /, '') : 'unexpected failure';
    return { code, message, action: ACTIONS[code] };
  }
  if (e instanceof TypeError) {
    const lost = serverUnreachable();
    return { code: lost.code, message: 'Lost connection to the Checkpoint Studio server', action: ACTIONS[lost.code] };
  }
  return { code: 'GF_INTERNAL', message: 'unexpected failure', action: ACTIONS.GF_INTERNAL };
}
