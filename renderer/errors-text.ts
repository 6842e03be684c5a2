// What to do about an engine error, by its stable GF code.
import { isGfError } from '../core/errors';

/** An error as the UI shows it: code, message and a next step. */
export interface ShownError {
  readonly code: string;
  readonly message: string;
  readonly action: string;
}

const ACTIONS: Readonly<Record<string, string>> = {
  GF_PROJECT_CORRUPT: 'The workspace files are damaged. Restore the folder from a backup, or open another workspace.',
  GF_UNSUPPORTED_PROJECT_FORMAT: 'This workspace was written by an unsupported version. Open it with a matching Checkpoint Studio version.',
  GF_PROJECT_UNINITIALIZED: 'The folder has no published generation yet. Publish one with `gf publish`, or open another workspace.',
  GF_WRITER_BUSY: 'Another writer holds the workspace. Wait for it to finish, then try again; nothing was changed.',
  GF_CHECKPOINT_EXISTS: 'Choose another name, or delete the existing checkpoint first.',
  GF_CHECKPOINT_NOT_FOUND: 'The checkpoint no longer exists. Refresh the history.',
  GF_CHECKPOINT_REGISTRY_CORRUPT: 'The checkpoint registry is damaged. Restore it from a backup.',
  GF_VALIDATION: 'Correct the input and try again.',
  GF_CANCELLED: 'The operation was cancelled; nothing is shown from it.',
  GF_IO: 'The engine could not read or write a file, or the bridge refused the call. Check the folder and the session, then retry.',
  GF_PAGE_SNAPSHOT_GONE: 'The data changed while paging. Reload the view.',
  GF_PAGE_INVALID: 'Reload the view.',
  GF_IDEMPOTENCY_CONFLICT: 'The same request id was used for a different request. Start again.',
  GF_RESOURCE_LIMIT: 'The request is too large. Narrow the scope.',
  GF_CHAIN_STORE: 'The ledger store could not be read. Check the workspace chain folder.',
};

/** Converts anything thrown by `invoke` into what the UI shows. */
export function showError(e: unknown): ShownError {
  if (isGfError(e)) {
    return { code: e.code, message: e.message.replace(/^GF_[A-Z_]+: /, ''), action: ACTIONS[e.code] ?? 'Try again, or open another workspace.' };
  }
  const code = typeof (e as { code?: unknown } | null)?.code === 'string' ? String((e as { code: string }).code) : 'GF_IO';
  const message = e instanceof Error ? e.message : 'unexpected failure';
  return { code, message, action: ACTIONS[code] ?? 'Try again.' };
}
