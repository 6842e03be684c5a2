// The app user's identity and the actors it knows by name, in one small JSON
// file of the app's own configuration directory (never inside a workspace):
// `actors.json`, written to a private sibling and renamed into place.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CONFIG_DIR_ENV, KNOWN_ACTORS_MAX, displayNameRefusal, normalizeDisplayName, type ActorBook, type ActorIdentity } from '../contract/actor';
import { UUID_PATTERN } from '../contract/operations';
import { GfError } from '../errors';

/** The identity file's name in the configuration directory. */
export const ACTORS_FILE = 'actors.json';

/**
 * The app's configuration directory: `GF_CONFIG_DIR` when set (absolute),
 * else `$XDG_CONFIG_HOME/checkpoint-studio`, else `~/.config/checkpoint-studio`.
 * The CLI, `gf serve` and the desktop app read the same one, so a name given
 * on the CLI is shown by the app.
 */
export function appConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[CONFIG_DIR_ENV];
  if (explicit !== undefined && explicit !== '' && isAbsolute(explicit)) return explicit;
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'checkpoint-studio');
}

interface StoredActors {
  readonly version: 1;
  readonly self: ActorIdentity;
  /** Actor UUID → name and when it was last seen (ms since the epoch). */
  readonly known: Readonly<Record<string, { readonly display_name: string; readonly seen_at: number }>>;
}

/**
 * The UUID a display name stands for when no UUID was given (`--actor NAME`):
 * SHA-256 of a fixed prefix and the normalized name, laid out as a UUIDv8.
 * The same name gives the same actor UUID on every machine.
 */
export function derivedActorUuid(name: string): string {
  const h = createHash('sha256').update(`checkpoint-studio actor\u0000${normalizeDisplayName(name)}`, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

function loginName(): string {
  try {
    const n = normalizeDisplayName(userInfo().username);
    if (displayNameRefusal(n) === null) return n;
  } catch {
    // no login name (a container without a passwd entry)
  }
  return 'Checkpoint Studio user';
}

function damaged(): GfError {
  return new GfError('GF_IO', "the app's identity file (actors.json in its configuration directory) is damaged; fix or remove it", { reason: 'actors_file_damaged' });
}

function parse(text: string): StoredActors {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw damaged();
  }
  const o = v as Partial<StoredActors> | null;
  const self = o?.self;
  if (o?.version !== 1 || typeof self?.actor_uuid !== 'string' || !UUID_PATTERN.test(self.actor_uuid) || typeof self.display_name !== 'string' || displayNameRefusal(self.display_name) !== null) throw damaged();
  const known: Record<string, { display_name: string; seen_at: number }> = {};
  for (const [k, e] of Object.entries(o.known ?? {})) {
    if (UUID_PATTERN.test(k) && typeof e?.display_name === 'string' && displayNameRefusal(e.display_name) === null && typeof e.seen_at === 'number') known[k] = { display_name: e.display_name, seen_at: e.seen_at };
  }
  return { version: 1, self: { actor_uuid: self.actor_uuid, display_name: self.display_name }, known };
}

/** The identity file of one configuration directory. */
export class ActorStore {
  readonly #dir: string;
  readonly #now: () => number;

  constructor(dir: string, now: () => number = Date.now) {
    this.#dir = dir;
    this.#now = now;
  }

  #read(): StoredActors | null {
    let text: string;
    try {
      text = readFileSync(join(this.#dir, ACTORS_FILE), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new GfError('GF_IO', "the app's identity file could not be read", { reason: (e as NodeJS.ErrnoException).code ?? 'read_failed' });
    }
    return parse(text);
  }

  #write(s: StoredActors): void {
    const entries = Object.entries(s.known).sort((a, b) => b[1].seen_at - a[1].seen_at).slice(0, KNOWN_ACTORS_MAX);
    const body = `${JSON.stringify({ ...s, known: Object.fromEntries(entries) }, null, 2)}\n`;
    const tmp = join(this.#dir, `.${ACTORS_FILE}.${process.pid}.${randomUUID()}.tmp`);
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      writeFileSync(tmp, body, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, join(this.#dir, ACTORS_FILE));
    } catch (e) {
      rmSync(tmp, { force: true });
      throw new GfError('GF_IO', "the app's identity file could not be written", { reason: (e as NodeJS.ErrnoException).code ?? 'write_failed' }, false);
    }
  }

  /** The stored identities, creating the user's once (a random actor UUID and the login name) when there is none. */
  #ensure(): StoredActors {
    const s = this.#read();
    if (s !== null) return s;
    const created: StoredActors = { version: 1, self: { actor_uuid: randomUUID(), display_name: loginName() }, known: {} };
    this.#write(created);
    return created;
  }

  /** `actor.show`: the user (created on first use) and every actor known by name, the user first. */
  show(): ActorBook {
    const s = this.#ensure();
    const others = Object.entries(s.known)
      .filter(([id]) => id !== s.self.actor_uuid)
      .sort((a, b) => b[1].seen_at - a[1].seen_at)
      .map(([actor_uuid, e]) => ({ actor_uuid, display_name: e.display_name }));
    // Plain data with no shared references (each entry its own object): what every transport carries as is.
    return { self: { ...s.self }, known: [{ ...s.self }, ...others] };
  }

  /** `actor.rename`: a new display name for the user; the actor UUID stays. */
  rename(displayName: string): ActorIdentity {
    const s = this.#ensure();
    const self = { actor_uuid: s.self.actor_uuid, display_name: normalizeDisplayName(displayName) };
    this.#write({ ...s, self });
    return self;
  }

  /**
   * `actor.resolve`: a UUID as it is (with its name when known), or a name as
   * its derived UUID, remembered so the app shows the name for it.
   */
  resolve(actor: string): { readonly actor_uuid: string; readonly display_name: string | null } {
    const text = actor.trim();
    if (UUID_PATTERN.test(text.toLowerCase())) {
      const id = text.toLowerCase();
      const s = this.#read();
      const name = s === null ? null : s.self.actor_uuid === id ? s.self.display_name : (s.known[id]?.display_name ?? null);
      return { actor_uuid: id, display_name: name };
    }
    if (displayNameRefusal(text) !== null) {
      throw new GfError('GF_VALIDATION', 'an actor is a display name (1 to 64 characters, no control characters) or an actor UUID', { field: 'actor' }, false);
    }
    const name = normalizeDisplayName(text);
    const id = derivedActorUuid(name);
    const s = this.#ensure();
    this.#write({ ...s, known: { ...s.known, [id]: { display_name: name, seen_at: this.#now() } } });
    return { actor_uuid: id, display_name: name };
  }
}
