// The workspace's change token: what the app polls to notice changes made by
// other processes (the CLI, a second window) without re-reading anything.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../project/layout';
import { REGISTRY_PATHS } from '../checkpoints/registry-store';

/** The chain store's folder and ledger file names (the SQLite store, CHAIN.md). */
const CHAIN_DIR = 'chain';
const LEDGER_FILES = ['checkpoints.sqlite', 'checkpoints.sqlite-wal'] as const;

/** Identity of one file's current version: inode, size and nanosecond mtime ('-' when absent). */
function fileStamp(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return '-';
  }
}

/**
 * A token that changes whenever CURRENT, the checkpoint registry or a ledger
 * file is replaced or written.
 *
 * Every one of these is written by rename (CURRENT, registry.json) or grows
 * (SQLite and its WAL), so its inode, size or mtime changes with each write.
 * Only `stat` calls: cheap enough to poll every second.
 */
export function workspaceChangeToken(root: string): string {
  const parts = [fileStamp(join(root, LAYOUT.current)), fileStamp(join(root, REGISTRY_PATHS.dir, REGISTRY_PATHS.registry))];
  let ledgers: string[] = [];
  try {
    ledgers = readdirSync(join(root, CHAIN_DIR)).sort();
  } catch {
    // No chain folder: nothing to watch there.
  }
  for (const dir of ledgers) for (const f of LEDGER_FILES) parts.push(`${dir}/${f}=${fileStamp(join(root, CHAIN_DIR, dir, f))}`);
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}
