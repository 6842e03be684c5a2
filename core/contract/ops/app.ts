// The app-level operations: the launch session, the desktop folder dialog and
// the app user's identity (who did it). Each declared once: request schema,
// result type, whether it writes, summary. Browser-safe (zod and core/contract).
import { z } from 'zod';
import { DISPLAY_NAME_MAX_CHARS, type ActorBook, type ActorIdentity } from '../actor';
import type { OperationName } from '../operation-names';
import type { LaunchThreadSources } from '../threads';
import { displayNameSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';
import type { ProjectOpened } from './project';

/** What `app.choose_workspace` returns. */
export interface ChosenWorkspace {
  /** The folder chosen in the dialog (absolute), or null when the person cancelled. */
  readonly path: string | null;
}

/** What `app.session` returns: the project the launcher opened, the surface mode and what it offers. */
export interface AppSession {
  readonly project: ProjectOpened | null;
  readonly mode: 'electron' | 'browser' | 'library';
  readonly operations: readonly OperationName[];
  /** Agent threads: the launch's default SQLite source (the demo's `langgraph.sqlite`) and whether a launch Postgres exists (never its URL). */
  readonly threads: LaunchThreadSources;
}

/** The app operations. */
export const APP_OPERATIONS = {
  'app.session': jsonOp(z.object({}).strict(), returns<AppSession>(), false, 'The project opened by the launcher, if any, and the surface mode.'),
  /**
   * The desktop app's folder dialog (Electron's `showOpenDialog`, one folder): the folder the person chose, or
   * null when they cancelled. Opens nothing (the renderer then calls `project.open`). `GF_DESKTOP_ONLY` on a
   * surface without a dialog (browser mode types the path).
   */
  'app.choose_workspace': jsonOp(z.object({}).strict(), returns<ChosenWorkspace>(), false, 'Choose a workspace folder with the desktop app\'s dialog (desktop only).'),
  /** The app user's identity (created once, on first use: a generated actor UUID and the login name) and the actors known by name. */
  'actor.show': jsonOp(z.object({}).strict(), returns<ActorBook>(), false, "The app user's display name and actor UUID, and every actor known by name."),
  /** Renames the app user (the actor UUID stays). */
  'actor.rename': jsonOp(z.object({ display_name: displayNameSchema }).strict(), returns<{ readonly self: ActorIdentity }>(), true, "Change the app user's display name (the actor UUID stays)."),
  /**
   * The actor UUID of a display name or UUID a surface was given (`--actor`,
   * `GF_ACTOR`): a UUID as is, a name as the UUID derived from it (the same
   * name gives the same UUID everywhere); a name is remembered, so the app
   * shows it for that UUID.
   */
  'actor.resolve': jsonOp(z.object({ actor: z.string().min(1).max(4 * DISPLAY_NAME_MAX_CHARS) }).strict(), returns<{ readonly actor_uuid: string; readonly display_name: string | null }>(), true, 'The actor UUID of a display name or UUID (a name is remembered for the app).'),
} as const satisfies DomainOperations;
