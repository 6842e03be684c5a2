// `gf doctor` over the derived caches (core/project/CACHES.md): every entry
// under cache/validation, cache/index, cache/record-sets and cache/diff that is not a sound cache
// file is a leftover (a killed write's temp, a torn or foreign file). Caches
// are derived and rebuildable: removing any of these costs time only.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { inspectValidationRecordFile } from '../checkpoints/validation-record';
import { isSoundRecordIndexFile } from '../diff/merge-record-index';
import { recordSetEntryValue } from '../diff/page-record-set';
import { TOKEN_SECRET_BYTES } from '../diff/page-token';
import type { Anomaly } from '../project/doctor';
import { LAYOUT } from '../project/layout';
import { readUserFile } from '../regular-file';

const REMEDY = 'a derived cache entry gf rebuilds when needed: safe to delete (`gf doctor --repair`, or by hand)';
const HEX64 = '[0-9a-f]{64}';
const TEMP = /\.tmp$/;
/** Largest cache file doctor reads to check (a change list can be large; bigger ones are checked by size only). */
const READ_MAX = 1 << 30;

function leftoverEntry(rel: string, problem: string): Anomaly {
  return { path: rel, problem, remedy: REMEDY, repairable: true, leftover: 'cache_entry' };
}

/** The bytes of a regular file (never through a link, never waiting on a FIFO); undefined otherwise. */
function readRegular(abs: string): Buffer | undefined {
  const read = readUserFile(abs, READ_MAX, { followLinks: false });
  return read.ok ? read.bytes : undefined;
}

function entries(root: string, rel: string): fs.Dirent[] {
  const abs = path.join(root, ...rel.split('/'));
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (st === undefined || !st.isDirectory()) return [];
  try {
    return fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return []; // a directory gf cannot list: the permission report says so
  }
}

/** The problem of one entry that is not a regular file, a temp, or a name the cache never writes; undefined when it needs its content checked. */
function shapeProblem(ent: fs.Dirent, name: RegExp, what: string): string | undefined {
  if (TEMP.test(ent.name)) return `temp file of an interrupted ${what} write`;
  if (!ent.isFile()) return `not a regular file where gf keeps ${what}s`;
  if (!name.test(ent.name)) return `not a ${what} (a name gf never writes there)`;
  return undefined;
}

/** Entries of a cache of `<key>.<ext>` files that are not sound: `sound` checks a file's bytes under its key. */
function keyedEntries(root: string, dir: string, ext: string, what: string, sound: (bytes: Buffer, key: string) => boolean): Anomaly[] {
  const out: Anomaly[] = [];
  const name = new RegExp(`^(${HEX64})\\.${ext}$`);
  for (const ent of entries(root, dir)) {
    const rel = `${dir}/${ent.name}`;
    const shape = shapeProblem(ent, name, what);
    if (shape !== undefined) {
      out.push(leftoverEntry(rel, shape));
      continue;
    }
    const bytes = readRegular(path.join(root, ...rel.split('/')));
    if (bytes === undefined || !sound(bytes, (name.exec(ent.name) as RegExpExecArray)[1] as string)) out.push(leftoverEntry(rel, `${what} that does not verify (torn, edited, or stored under another key)`));
  }
  return out;
}

/** Every leftover entry of the derived caches, with its path and why. */
export function cacheAnomalies(root: string): Anomaly[] {
  const out: Anomaly[] = [];
  const validation = new RegExp(`^(${HEX64})\\.json$`);
  for (const ent of entries(root, LAYOUT.validationCache)) {
    const rel = `${LAYOUT.validationCache}/${ent.name}`;
    const shape = shapeProblem(ent, validation, 'validation record');
    if (shape !== undefined) out.push(leftoverEntry(rel, shape));
    else if (inspectValidationRecordFile(root, (validation.exec(ent.name) as RegExpExecArray)[1] as string) === 'corrupt') {
      out.push(leftoverEntry(rel, 'validation record that does not verify (torn, edited, or naming another manifest)'));
    }
  }
  out.push(...keyedEntries(root, LAYOUT.indexCache, 'idx', 'record index', isSoundRecordIndexFile));
  out.push(...keyedEntries(root, LAYOUT.recordSetCache, 'fp', 'record-set fingerprint', (bytes, key) => recordSetEntryValue(bytes, key) !== undefined));
  const change = new RegExp(`^(${HEX64})\\.(arrow|sha256)$`);
  const changes = entries(root, LAYOUT.diffChanges);
  const names = new Set(changes.map((e) => e.name));
  for (const ent of changes) {
    const rel = `${LAYOUT.diffChanges}/${ent.name}`;
    const shape = shapeProblem(ent, change, 'change list');
    if (shape !== undefined) {
      out.push(leftoverEntry(rel, shape));
      continue;
    }
    const [, key, ext] = change.exec(ent.name) as RegExpExecArray;
    const other = `${key as string}.${ext === 'arrow' ? 'sha256' : 'arrow'}`;
    if (!names.has(other)) {
      out.push(leftoverEntry(rel, `half of a change list (no ${other} beside it)`));
      continue;
    }
    if (ext !== 'arrow') continue; // the pair is checked once, from its data file
    const dir = path.join(root, ...LAYOUT.diffChanges.split('/'));
    const data = readRegular(path.join(dir, ent.name));
    const sum = readRegular(path.join(dir, other));
    if (data === undefined || sum === undefined || sum.toString('utf8') !== `${createHash('sha256').update(data).digest('hex')}\n`) {
      out.push(leftoverEntry(rel, 'change list that does not match its checksum (torn or edited)'), leftoverEntry(`${LAYOUT.diffChanges}/${other}`, 'checksum of a change list that does not match it'));
    }
  }
  const key = LAYOUT.pageTokenKey.split('/').at(-1) as string;
  for (const ent of entries(root, LAYOUT.diffCache)) {
    const rel = `${LAYOUT.diffCache}/${ent.name}`;
    if (ent.name === 'changes' && ent.isDirectory()) continue;
    if (TEMP.test(ent.name)) out.push(leftoverEntry(rel, 'temp file of an interrupted page-token key write'));
    else if (ent.name === key) {
      const bytes = ent.isFile() ? readRegular(path.join(root, ...rel.split('/'))) : undefined;
      if (bytes?.length !== TOKEN_SECRET_BYTES) out.push(leftoverEntry(rel, `page-token key that is not ${TOKEN_SECRET_BYTES} bytes in a regular file (the next diff replaces it; outstanding page tokens then stop working)`));
    } else out.push(leftoverEntry(rel, 'not a diff cache entry (a name gf never writes there)'));
  }
  return out;
}

/**
 * Removes what `cacheAnomalies` reports now (checked again, so a record rewritten
 * meanwhile stays). Never follows a link: a link or special file is unlinked
 * itself, a directory removed as a tree of its own entries.
 */
export function removeCacheLeftovers(root: string): void {
  for (const a of cacheAnomalies(root)) {
    const abs = path.join(root, ...a.path.split('/'));
    try {
      fs.rmSync(abs, { recursive: true, force: true });
    } catch {
      // Still there: the next report lists it again.
    }
  }
}
