// Who did it: the app user's identity (a display name and a stable actor
// UUID, kept in the app's own configuration directory, never in a
// workspace) and the names of actors seen before. Browser-safe: the shapes
// and rules every surface shows and checks, declared once.

/** Largest display name (UTF-16 code units, after trimming). */
export const DISPLAY_NAME_MAX_CHARS = 64;

/** Actors remembered by name at most (the oldest-seen are forgotten first). */
export const KNOWN_ACTORS_MAX = 1024;

/** The environment variable naming the CLI's actor (a display name or an actor UUID), like `--actor`. */
export const ACTOR_ENV = 'GF_ACTOR';

/** The environment variable naming the app's configuration directory (the identity file lives there). */
export const CONFIG_DIR_ENV = 'GF_CONFIG_DIR';

/** Characters of an actor UUID shown where its name is unknown (the full UUID is on hover). */
export const ACTOR_SHORT_CHARS = 8;

/** One actor as surfaces show it. */
export interface ActorIdentity {
  readonly actor_uuid: string;
  readonly display_name: string;
}

/** `actor.show`: the app user's identity and every actor known by name (the user included). */
export interface ActorBook {
  readonly self: ActorIdentity;
  readonly known: readonly ActorIdentity[];
}

/** Why a display name was refused; a closed, value-free vocabulary. */
export type DisplayNameRefusal = 'empty' | 'too_long' | 'control_character';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The display name as stored: outer whitespace trimmed, NFC. */
export function normalizeDisplayName(name: string): string {
  return name.trim().normalize('NFC');
}

/** The refusal for a display name, or null when acceptable (1–64 characters after trimming, no control character). */
export function displayNameRefusal(name: string): DisplayNameRefusal | null {
  const n = normalizeDisplayName(name);
  if (n.length === 0) return 'empty';
  if (n.length > DISPLAY_NAME_MAX_CHARS) return 'too_long';
  if (CONTROL.test(n)) return 'control_character';
  return null;
}

/** The short form of an actor id (its first eight characters) for an actor never seen by name. */
export function shortActorId(actor: string): string {
  return actor.length <= ACTOR_SHORT_CHARS ? actor : actor.slice(0, ACTOR_SHORT_CHARS);
}

/** The name of `actor` in `book`, or null when it was never seen by name. */
export function actorName(book: ActorBook | null, actor: string): string | null {
  if (book === null) return null;
  if (book.self.actor_uuid === actor) return book.self.display_name;
  return book.known.find((a) => a.actor_uuid === actor)?.display_name ?? null;
}
