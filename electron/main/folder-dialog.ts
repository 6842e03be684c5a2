// The desktop's folder dialog behind the facade's port (`app.choose_workspace`):
// Electron's `dialog.showOpenDialog(window, { properties: ['openDirectory'] })`.
// Importable without the Electron binary: main passes the real `dialog` and its
// window; the Electron-shaped e2e pass and the main-start test pass stand-ins.
import type { FolderDialog } from '../../core/api/facade';

/** The options main asks the dialog for: one existing folder. */
export const FOLDER_DIALOG_OPTIONS = Object.freeze({ title: 'Open a workspace', buttonLabel: 'Open', properties: Object.freeze(['openDirectory'] as const) });

/** The subset of Electron's `dialog` the port uses (`showOpenDialog` with a parent window). */
export interface OpenDialogLike<W> {
  showOpenDialog(window: W, options: typeof FOLDER_DIALOG_OPTIONS): Promise<{ readonly canceled: boolean; readonly filePaths: readonly string[] }>;
}

/**
 * The facade's folder dialog over `dialog`, modal to `window()` (the app's
 * window): the chosen folder, or null when the person cancelled (or there is
 * no window to attach the dialog to).
 */
export function folderDialog<W>(dialog: OpenDialogLike<W>, window: () => W | null): FolderDialog {
  return async () => {
    const parent = window();
    if (parent === null) return null;
    const r = await dialog.showOpenDialog(parent, FOLDER_DIALOG_OPTIONS);
    return r.canceled ? null : (r.filePaths[0] ?? null);
  };
}
