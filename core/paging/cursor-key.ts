// Where the page-token keys of the engine come from: a project's key file
// (workspace diffs) or the user's cache (every other paged listing). One key
// mechanism (./key-file.ts); the caller holds the key it loads.
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadTokenSecret } from './key-file';
import type { CursorKey } from './cursor';

/** The page-token key of a workspace (`cache/diff/page-token.key`, or in memory for a workspace this process cannot write). */
export function projectCursorKey(projectRoot: string): CursorKey {
  return loadTokenSecret(projectRoot);
}

/**
 * The page-token key of listings that write nothing where they read
 * (checkpoint lists, views, graphs, history, chains, LangGraph threads):
 * kept under the user's cache directory, so tokens stay valid across `gf`
 * invocations; an unwritable cache gives an in-memory key.
 */
export function userCursorKey(env: Readonly<Record<string, string | undefined>> = process.env): CursorKey {
  const root = join(env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'checkpoint-studio', 'threads');
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  } catch (_e) {
    // loadTokenSecret falls back to an in-memory key when it cannot write.
  }
  return loadTokenSecret(root);
}
