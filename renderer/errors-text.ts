// What to do about an engine error, by its stable code (a GF_* code or a chain error id).
import { errorCodeOf, serverUnreachable } from '../core/contract/errors';

/** An error as the UI shows it: code, message and a next step. */
export interface ShownError {
  readonly code: string;
  readonly message: string;
  readonly action: string;
}

const ACTIONS: Readonly<Record<string, string>> = {
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
  'workflows.workflow_not_found': 'This workspace has no ledger for that workflow. Refresh the ledgers.',
  'workflows.checkpoint_head_unexpected': 'The ledger ends at a different head than expected: it may have been truncated.',
  'workflows.checkpoint_store_corrupt': 'The ledger store holds rows it cannot have written. Restore the chain folder from a backup.',
  'workflows.checkpoint_store_closed': 'The ledger store was closed. Reopen the workspace.',
};

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
    const message = e instanceof Error ? e.message.replace(/^(GF_[A-Z_]+|workflows\.[a-z_]+): /, '') : 'unexpected failure';
    return { code, message, action: ACTIONS[code] ?? 'Try again, or open another workspace.' };
  }
  if (e instanceof TypeError) {
    const lost = serverUnreachable();
    return { code: lost.code, message: 'Lost connection to the Checkpoint Studio server', action: ACTIONS[lost.code] ?? 'Reload.' };
  }
  return { code: 'GF_INTERNAL', message: 'unexpected failure', action: ACTIONS['GF_INTERNAL'] ?? 'Try again.' };
}
