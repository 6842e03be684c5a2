// The workspace's retention policy file history/retention.json: read, validated, written.
import { z } from 'zod';
import { orderedJson } from '../canonical/index';
import { GfError } from '../errors';
import { RETAIN_ANCESTORS_MAX } from '../contract/history';
import { atomicReplace, corrupt, fsyncDir, makeDir, readFileNoFollow, unlinkIfPresent } from './durable-fs';
import { LAYOUT, place } from './layout';

/**
 * The workspace's retention policy, `history/retention.json`.
 *
 * Root metadata, like the checkpoint registry: not a participant (a revert
 * must not change how much history is kept). Canonical JSON + LF,
 * `{"format":"graphforge-retention","format_version":1,"retain_ancestors":N}`;
 * written by temp, flush, rename, directory flush under the writer lock.
 * Absent = the default window.
 */

/** Upper bound of the file (it is ~80 bytes). */
export const RETENTION_POLICY_MAX_BYTES = 1024;

/** The policy's temp sibling inside `history/` (recovery removes a leftover). */
export const RETENTION_POLICY_TMP = '.retention.json.tmp';

/** The stored policy. */
export interface RetentionPolicyFile {
  readonly retainAncestors: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** The exact bytes of the policy file. */
export function encodeRetentionPolicy(p: RetentionPolicyFile): Uint8Array {
  return enc.encode(`${orderedJson({ format: 'graphforge-retention', format_version: 1, retain_ancestors: p.retainAncestors })}\n`);
}

const Schema = z.strictObject({
  format: z.literal('graphforge-retention'),
  format_version: z.literal(1),
  retain_ancestors: z.number().int().min(0).max(RETAIN_ANCESTORS_MAX),
});

/** Reads the workspace's policy (undefined when none is stored); anything but the exact encoding is `GF_PROJECT_CORRUPT`. */
export function readRetentionPolicy(root: string): RetentionPolicyFile | undefined {
  const p = place(root, LAYOUT.retentionPolicy);
  const bytes = readFileNoFollow(p.abs, p.rel, RETENTION_POLICY_MAX_BYTES);
  if (bytes === undefined) return undefined;
  let parsed: RetentionPolicyFile | undefined;
  try {
    const r = Schema.safeParse(JSON.parse(dec.decode(bytes)));
    if (r.success) parsed = { retainAncestors: r.data.retain_ancestors };
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || Buffer.compare(encodeRetentionPolicy(parsed), bytes) !== 0) throw corrupt('retention policy is malformed', p.rel);
  return parsed;
}

/** Stores the policy crash-safely (the caller holds the writer lock); a reader sees the old or the new file, never a mixture. */
export function writeRetentionPolicyLocked(root: string, policy: RetentionPolicyFile): void {
  if (!Number.isSafeInteger(policy.retainAncestors) || policy.retainAncestors < 0 || policy.retainAncestors > RETAIN_ANCESTORS_MAX) {
    throw new GfError('GF_VALIDATION', `retained ancestors must be an integer from 0 to ${RETAIN_ANCESTORS_MAX}`, { field: 'retain_ancestors', max: RETAIN_ANCESTORS_MAX }, false);
  }
  const dir = place(root, LAYOUT.history);
  if (makeDir(dir.abs, dir.rel)) fsyncDir(root, '.');
  const p = place(root, LAYOUT.retentionPolicy);
  atomicReplace(p.abs, p.rel, RETENTION_POLICY_TMP, encodeRetentionPolicy(policy));
}

/** Removes a policy temp left by an interrupted write (recovery; the caller holds the writer lock). */
export function removeRetentionPolicyTemp(root: string): boolean {
  const t = place(root, `${LAYOUT.history}/${RETENTION_POLICY_TMP}`);
  const d = place(root, LAYOUT.history);
  if (readFileNoFollow(t.abs, t.rel, RETENTION_POLICY_MAX_BYTES + 1) === undefined) return false;
  unlinkIfPresent(t.abs, t.rel);
  fsyncDir(d.abs, d.rel);
  return true;
}
