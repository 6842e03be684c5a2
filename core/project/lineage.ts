// The lineage log history/lineage.jsonl: a hash-chained record of published generations.
import fs from 'node:fs';
import { z } from 'zod';
import { isCanonicalUuid, orderedJson, sha256Hex } from '../canonical/index';
import { checkDir, checkFile, corrupt, ioError, isErrno, makeDir, openRegularNoFollow, readFileNoFollow } from './durable-fs';
import type { WriteMeter } from './durable-fs';
import { flushDirs, runSync } from './flush';
import type { Steps } from './flush';
import { fsx } from './fs-layer';
import { LINEAGE_KINDS, type LineageKind } from '../contract/history';
import type { CurrentPointer, Journal, LineageIntent, Manifest } from './formats';
import { familyKeyOf } from './formats';
import { listJournals, readJournal } from './journal';
import { LAYOUT, place } from './layout';
import { loadManifest, readManifestBytes } from './lease';

/**
 * The lineage log `history/lineage.jsonl` (GENERATIONS.md "Lineage log").
 *
 * One canonical JSON line per generation that became CURRENT, in publication
 * order, each chained to the previous line by `prev_line_sha256` (genesis: 64
 * zeros), so an edited or torn line is detectable. The writer appends and
 * flushes the line after the CURRENT rename and before the PUBLISHED journal
 * state; the fields it needs beyond the manifest (`published_at`, `actor`,
 * kind, reason, restored checkpoint, participants changed) are in the journal
 * before the rename, so recovery rebuilds a missing or torn final line from
 * the journal and manifest alone, never from a clock. Retention never touches
 * the file.
 */

/** `prev_line_sha256` of the first line. */
export const LINEAGE_GENESIS = '0'.repeat(64);
/** Upper bound of the whole log read by history (GF_PROJECT_CORRUPT above it). */
export const LINEAGE_MAX_BYTES = 64 * 1024 * 1024;
/** Upper bound of one line (a 1,024-byte reason escaped at worst ×6, plus the fixed fields). */
export const LINEAGE_LINE_MAX_BYTES = 16 * 1024;

/** One lineage record, in the line's field order. */
export interface LineageRecord {
  readonly seq: number;
  readonly generationUuid: string;
  readonly parentGenerationUuid: string | null;
  readonly manifestSha256: string;
  /** UTC microseconds since the epoch. */
  readonly publishedAt: number;
  readonly actor: string | null;
  readonly kind: LineageKind;
  readonly restoredCheckpointUuid: string | null;
  readonly reason: string | null;
  readonly participantsChanged: number;
  readonly prevLineSha256: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** The exact bytes of one line: ordered canonical JSON + LF. */
export function encodeLineageLine(r: LineageRecord): Uint8Array {
  return enc.encode(
    `${orderedJson({
      seq: r.seq,
      generation_uuid: r.generationUuid,
      parent_generation_uuid: r.parentGenerationUuid,
      manifest_sha256: r.manifestSha256,
      published_at: r.publishedAt,
      actor: r.actor,
      kind: r.kind,
      restored_checkpoint_uuid: r.restoredCheckpointUuid,
      reason: r.reason,
      participants_changed: r.participantsChanged,
      prev_line_sha256: r.prevLineSha256,
    })}\n`,
  );
}

const UUID = z.string().refine((s) => isCanonicalUuid(s));
const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);
const LineSchema = z.strictObject({
  seq: z.number().int().min(1),
  generation_uuid: UUID,
  parent_generation_uuid: UUID.nullable(),
  manifest_sha256: HEX64,
  published_at: z.number().int(),
  actor: UUID.nullable(),
  kind: z.enum(LINEAGE_KINDS),
  restored_checkpoint_uuid: UUID.nullable(),
  reason: z.string().max(LINEAGE_LINE_MAX_BYTES).nullable(),
  participants_changed: z.number().int().min(0),
  prev_line_sha256: HEX64,
});

/** Parses one line (with its LF); undefined unless it is exactly the canonical encoding. */
export function parseLineageLine(bytes: Uint8Array): LineageRecord | undefined {
  try {
    const r = LineSchema.safeParse(JSON.parse(dec.decode(bytes)));
    if (!r.success) return undefined;
    const d = r.data;
    const rec: LineageRecord = {
      seq: d.seq,
      generationUuid: d.generation_uuid,
      parentGenerationUuid: d.parent_generation_uuid,
      manifestSha256: d.manifest_sha256,
      publishedAt: d.published_at,
      actor: d.actor,
      kind: d.kind,
      restoredCheckpointUuid: d.restored_checkpoint_uuid,
      reason: d.reason,
      participantsChanged: d.participants_changed,
      prevLineSha256: d.prev_line_sha256,
    };
    return Buffer.compare(encodeLineageLine(rec), bytes) === 0 ? rec : undefined;
  } catch {
    return undefined;
  }
}

/** `history/lineage.jsonl`. */
export function lineagePlace(root: string): { readonly abs: string; readonly rel: string } {
  return place(root, LAYOUT.lineage);
}

/** The verified log: every record in order, and the byte length of the verified prefix. */
export interface LineageLog {
  readonly records: readonly LineageRecord[];
  /** SHA-256 of the last line's bytes (the next line's `prev_line_sha256`); genesis when empty. */
  readonly tailSha256: string;
  /** Bytes after the last complete line (a torn final line, or an append in flight); 0 when clean. */
  readonly tornBytes: number;
  /** Length of the verified prefix (every complete, chained line). */
  readonly verifiedBytes: number;
  /** False when the file does not exist (no publication since the log was introduced). */
  readonly exists: boolean;
}

/**
 * Reads and verifies the whole log: every line canonical, `seq` 1, 2, …, and
 * each `prev_line_sha256` the SHA-256 of the line before.
 *
 * A complete line that fails any check is `GF_PROJECT_CORRUPT` naming the
 * file and the line number (never skipped). Bytes after the last LF (a torn
 * final line) are reported in `tornBytes`, not parsed: the writer repairs
 * them under its lock (`repairLineageLocked`).
 */
export function readLineage(root: string): LineageLog {
  const p = lineagePlace(root);
  const bytes = readFileNoFollow(p.abs, p.rel, LINEAGE_MAX_BYTES);
  if (bytes === undefined) return { records: [], tailSha256: LINEAGE_GENESIS, tornBytes: 0, verifiedBytes: 0, exists: false };
  return verifyLines(bytes, p.rel, false);
}

function verifyLines(bytes: Uint8Array, rel: string, lastMayBeBad: boolean): LineageLog & { readonly badLast: boolean } {
  const records: LineageRecord[] = [];
  let prev = LINEAGE_GENESIS;
  let start = 0;
  let badLast = false;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl < 0) break;
    const line = bytes.subarray(start, nl + 1);
    const rec = line.length > LINEAGE_LINE_MAX_BYTES ? undefined : parseLineageLine(line);
    if (rec === undefined || rec.seq !== records.length + 1 || rec.prevLineSha256 !== prev) {
      if (lastMayBeBad && bytes.indexOf(0x0a, nl + 1) < 0) {
        badLast = true;
        break;
      }
      throw corrupt('lineage log line does not verify', rel, { line: records.length + 1 });
    }
    records.push(rec);
    prev = sha256Hex(line);
    start = nl + 1;
  }
  return { records, tailSha256: prev, tornBytes: bytes.length - start, verifiedBytes: start, exists: true, badLast };
}

/** The log's end: the last record's `seq` and line SHA-256 (0 and genesis when empty or absent). */
export interface LineageTail {
  readonly seq: number;
  readonly sha256: string;
  readonly last: LineageRecord | undefined;
  /** Bytes after the last LF (a torn final line). */
  readonly tornBytes: number;
}

/**
 * Reads only the end of the log (at most two line bounds): what the next line chains to.
 *
 * A torn tail, or a last complete line that does not parse, is
 * `GF_PROJECT_CORRUPT` for a writer (`strict`): recovery, run first under the
 * writer lock, repairs it.
 */
export function lineageTail(root: string, strict = true): LineageTail {
  const p = lineagePlace(root);
  const opened = openRegularNoFollow(p.abs, p.rel);
  if (opened === undefined) return { seq: 0, sha256: LINEAGE_GENESIS, last: undefined, tornBytes: 0 };
  const { fd, st } = opened;
  let chunk: Buffer;
  try {
    const want = Math.min(st.size, 2 * LINEAGE_LINE_MAX_BYTES + 1);
    chunk = Buffer.alloc(want);
    let off = 0;
    while (off < want) {
      const n = fs.readSync(fd, chunk, off, want - off, st.size - want + off);
      if (n === 0) break;
      off += n;
    }
    if (off !== want) throw corrupt('file changed while read', p.rel);
  } finally {
    fs.closeSync(fd);
  }
  const end = chunk.lastIndexOf(0x0a);
  const tornBytes = chunk.length - (end + 1);
  if (end < 0) {
    if (st.size === 0) return { seq: 0, sha256: LINEAGE_GENESIS, last: undefined, tornBytes: 0 };
    if (strict || st.size > chunk.length) throw corrupt('lineage log ends with a torn line', p.rel);
    return { seq: 0, sha256: LINEAGE_GENESIS, last: undefined, tornBytes };
  }
  const startAt = chunk.lastIndexOf(0x0a, end - 1) + 1;
  if (startAt === 0 && st.size > chunk.length) throw corrupt('lineage log line exceeds its bound', p.rel);
  const line = new Uint8Array(chunk.subarray(startAt, end + 1));
  const last = parseLineageLine(line);
  if (last === undefined || (strict && tornBytes > 0)) throw corrupt(last === undefined ? 'lineage log line does not verify' : 'lineage log ends with a torn line', p.rel);
  return { seq: last.seq, sha256: sha256Hex(line), last, tornBytes };
}

/** Participants added, removed, or with different content than the parent's. */
export function participantsChanged(parent: Manifest | undefined, next: Manifest): number {
  const before = new Map((parent?.participants ?? []).map((p) => [familyKeyOf(p), p.contentSha256]));
  let n = 0;
  for (const p of next.participants) {
    if (before.get(familyKeyOf(p)) !== p.contentSha256) n++;
    before.delete(familyKeyOf(p));
  }
  return n + before.size;
}

/** The record of a publication from its journal intent and manifest digest. */
export function recordFrom(
  seq: number,
  prev: string,
  j: { readonly generationUuid: string; readonly parentGenerationUuid: string | null },
  manifestSha256: string,
  intent: LineageIntent,
): LineageRecord {
  return {
    seq,
    generationUuid: j.generationUuid,
    parentGenerationUuid: j.parentGenerationUuid,
    manifestSha256,
    publishedAt: intent.publishedAt,
    actor: intent.actor,
    kind: intent.kind,
    restoredCheckpointUuid: intent.restoredCheckpointUuid,
    reason: intent.reason,
    participantsChanged: intent.participantsChanged ?? 0,
    prevLineSha256: prev,
  };
}

/**
 * Appends one line and flushes it (the file, and on first use its directory entries).
 *
 * `O_APPEND | O_NOFOLLOW`, regular file only. A failed write truncates the
 * file back to its length before the call (best effort; recovery repairs a
 * torn tail otherwise).
 */
export function* appendLineageSteps(root: string, line: Uint8Array, meter?: WriteMeter): Steps<void> {
  const dir = place(root, LAYOUT.history);
  const createdDir = makeDir(dir.abs, dir.rel);
  const p = lineagePlace(root);
  const existed = checkFile(p.abs, p.rel) !== undefined;
  let fd: number;
  try {
    fd = fsx.openSync(p.abs, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if (isErrno(e, 'ELOOP')) throw corrupt('symlink at a machine-owned path', p.rel);
    throw ioError(e, 'open', p.rel);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw corrupt('not a regular file', p.rel);
    const before = st.size;
    try {
      let off = 0;
      while (off < line.length) off += fsx.writeSync(fd, line, off, line.length - off);
    } catch (e) {
      try {
        fsx.ftruncateSync(fd, before);
      } catch {
        // Recovery truncates a torn tail and rewrites the line.
      }
      throw ioError(e, 'write', p.rel);
    }
    meter?.wrote(p.rel, line.length);
    yield [{ fd, rel: p.rel, op: 'write' }];
  } finally {
    fs.closeSync(fd);
  }
  // A new file's entry, and a new directory's entry in the root: no order between the two.
  if (!existed || createdDir) yield* flushDirs([...(existed ? [] : [dir]), ...(createdDir ? [place(root, '.')] : [])]);
}

/** Truncates the log to its verified prefix and flushes it (the caller holds the writer lock). */
function truncateTo(root: string, length: number): void {
  const p = lineagePlace(root);
  const opened = openRegularNoFollow(p.abs, p.rel);
  if (opened === undefined) return;
  fs.closeSync(opened.fd);
  let fd: number;
  try {
    fd = fsx.openSync(p.abs, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    throw ioError(e, 'open', p.rel);
  }
  try {
    fsx.ftruncateSync(fd, length);
    fsx.fsyncSync(fd);
  } catch (e) {
    throw ioError(e, 'truncate', p.rel);
  } finally {
    fs.closeSync(fd);
  }
}

/** What one lineage repair did. */
export interface LineageRepair {
  /** Bytes of a torn or unverifiable final line removed. */
  readonly truncatedBytes: number;
  /** Generations whose missing line was rebuilt from their journal and manifest, oldest first. */
  readonly appended: readonly string[];
}

/**
 * Makes the log end with CURRENT's record; the caller holds the writer lock.
 *
 * A torn final line (no LF, or a last line that does not verify) is cut back
 * to the verified prefix; then every generation from the last logged one up
 * to CURRENT (following journals' parents) gets its line rebuilt from its
 * journal's lineage intent and its manifest. Nothing is cut unless every line
 * it needs can be rebuilt: otherwise `GF_PROJECT_CORRUPT` naming the log, and
 * nothing changes. A workspace whose log never existed (created before the
 * log) starts it at the next publication instead.
 */
export function repairLineageLocked(root: string, cur: CurrentPointer | null, meter?: WriteMeter): LineageRepair {
  const p = lineagePlace(root);
  // The common case reads only the end: a clean tail whose last record is CURRENT's.
  try {
    const tail = lineageTail(root);
    if (cur !== null && tail.last?.generationUuid === cur.generationUuid) return { truncatedBytes: 0, appended: [] };
  } catch {
    // A torn or unverifiable tail: the full check below.
  }
  const bytes = readFileNoFollow(p.abs, p.rel, LINEAGE_MAX_BYTES);
  const log = bytes === undefined ? undefined : verifyLines(bytes, p.rel, true);
  const records = log?.records ?? [];
  const last = records.at(-1);
  const cut = log === undefined ? 0 : (bytes?.length ?? 0) - log.verifiedBytes;
  if (cur === null || last?.generationUuid === cur.generationUuid) {
    if (cut > 0) {
      if (cur === null) throw corrupt('lineage log ends with a torn line and no generation is CURRENT', p.rel);
      truncateTo(root, log?.verifiedBytes ?? 0);
    }
    return { truncatedBytes: cut, appended: [] };
  }
  // Walk back from CURRENT through journals until the last logged generation.
  const byGeneration = new Map<string, Journal>();
  for (const txn of listJournals(root).transactions) {
    const j = readJournal(root, txn);
    if (j !== undefined && j.lineage !== null && j.lineage !== undefined && j.state !== 'ABORTED') byGeneration.set(j.generationUuid, j);
  }
  const missing: Journal[] = [];
  let uuid: string | null = cur.generationUuid;
  while (uuid !== null && uuid !== last?.generationUuid) {
    const j = byGeneration.get(uuid);
    if (j === undefined) {
      if (log === undefined && missing.length === 0) return { truncatedBytes: 0, appended: [] }; // a log-less (older) workspace
      throw corrupt('lineage log is missing records that cannot be rebuilt', p.rel, { records: records.length });
    }
    missing.push(j);
    uuid = j.parentGenerationUuid;
    if (missing.length > byGeneration.size) throw corrupt('lineage journals form a cycle', p.rel);
  }
  if (uuid === null && last !== undefined) throw corrupt('lineage log does not end on an ancestor of CURRENT', p.rel);
  missing.reverse();
  const lines: Uint8Array[] = [];
  let prev = log?.tailSha256 ?? LINEAGE_GENESIS;
  let seq = records.length;
  for (const j of missing) {
    const manifestBytes = readManifestBytes(root, j.generationUuid);
    const digest = sha256Hex(manifestBytes);
    loadManifest(root, j.generationUuid, manifestBytes, undefined); // checked once while repairing, not remembered
    if (j.generationUuid === cur.generationUuid && digest !== cur.manifestSha256) throw corrupt('manifest digest does not match', p.rel);
    const line = encodeLineageLine(recordFrom(++seq, prev, j, digest, j.lineage as LineageIntent));
    lines.push(line);
    prev = sha256Hex(line);
  }
  if (cut > 0) truncateTo(root, log?.verifiedBytes ?? 0);
  for (const line of lines) runSync(appendLineageSteps(root, line, meter));
  return { truncatedBytes: cut, appended: missing.map((j) => j.generationUuid) };
}

/** True when the log (or its directory) exists: an absent CURRENT then means a damaged, not an empty, workspace. */
export function lineageExists(root: string): boolean {
  const d = place(root, LAYOUT.history);
  if (!checkDir(d.abs, d.rel)) return false;
  const p = lineagePlace(root);
  const st = checkFile(p.abs, p.rel);
  return st !== undefined && st.size > 0;
}

/** What `repairLineageLocked` would change now (`gf doctor`), read only. */
export interface LineageFindings {
  /** Bytes after the verified prefix that recovery cuts (a torn or unverifiable final line); 0 when clean. */
  readonly tornBytes: number;
  /** True when the log exists but its last record is not CURRENT's (a publication killed before its line landed). */
  readonly lacksCurrent: boolean;
}

/**
 * The lineage leftovers of a killed publication, or `GF_PROJECT_CORRUPT` when
 * a line before the last fails to verify (damage no recovery repairs).
 */
export function lineageFindings(root: string, cur: CurrentPointer | null): LineageFindings {
  const p = lineagePlace(root);
  const bytes = readFileNoFollow(p.abs, p.rel, LINEAGE_MAX_BYTES);
  if (bytes === undefined) return { tornBytes: 0, lacksCurrent: false };
  const log = verifyLines(bytes, p.rel, true);
  const last = log.records.at(-1);
  return { tornBytes: bytes.length - log.verifiedBytes, lacksCurrent: cur !== null && last?.generationUuid !== cur.generationUuid };
}
