import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLockFile, tryExclusive } from '../../../../core/project/sqlite-lock';
import { issueWriterProof } from '../../../../core/project/writer-proof';
import type { WriterLockProof } from '../../../../core/project/writer-proof';
import { isPlan, planCreate, planDelete, prepareCreate, prepareDelete } from '../../../../core/checkpoints/registry-core';
import type { CheckpointReceipt } from '../../../../core/checkpoints/registry-core';
import { REGISTRY_FORMAT, REGISTRY_FORMAT_VERSION, compareActive, compareTombstones } from '../../../../core/checkpoints/registry-format';
import type { ActiveRow, RegistryDoc, TombstoneRow } from '../../../../core/checkpoints/registry-format';

/** A bare directory with `locks/`: enough for the registry shell on its own. */
export function tempRoot(prefix = 'gf-reg-'): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.mkdirSync(path.join(root, 'locks'));
  createLockFile(path.join(root, 'locks', 'writer.lock'), 'locks/writer.lock');
  return root;
}

const WRITERS = new Map<string, { readonly proof: WriterLockProof; readonly release: () => void }>();

/**
 * Takes the writer lock of a bare registry root for the rest of the test (what `withWriter` does for a project)
 * and returns its proof; `removeRoot` releases it.
 */
export function writerOf(root: string): WriterLockProof {
  const held = WRITERS.get(root);
  if (held !== undefined) return held.proof;
  const a = tryExclusive(path.join(root, 'locks', 'writer.lock'), 'locks/writer.lock');
  if (a.kind !== 'held') throw new Error(`writer lock of ${root}: ${a.kind}`);
  const issued = issueWriterProof(root);
  WRITERS.set(root, {
    proof: issued.proof,
    release: () => {
      issued.revoke();
      a.lock.release();
    },
  });
  return issued.proof;
}

/** Runs `fn` holding the writer lock of `root` (a project or a bare root), with its proof. */
export function withWriterLock<R>(root: string, fn: (proof: WriterLockProof) => R): R {
  const a = tryExclusive(path.join(root, 'locks', 'writer.lock'), 'locks/writer.lock');
  if (a.kind !== 'held') throw new Error(`writer lock of ${root}: ${a.kind}`);
  const issued = issueWriterProof(root);
  try {
    return fn(issued.proof);
  } finally {
    issued.revoke();
    a.lock.release();
  }
}

/** Releases the writer lock `writerOf` took for `root` (no-op when none). */
export function releaseWriter(root: string): void {
  WRITERS.get(root)?.release();
  WRITERS.delete(root);
}

export function removeRoot(root: string): void {
  releaseWriter(root);
  fs.rmSync(root, { recursive: true, force: true });
}

/** Deterministic canonical UUID number `n` (version 7 shape, lowercase). */
export function uuidN(n: number, prefix = '018f0f4e-7b8c-7000-8000-'): string {
  return `${prefix}${n.toString(16).padStart(12, '0')}`;
}

export const GEN_A = '0190a000-0000-8000-8000-00000000000a';
export const GEN_B = '0190a000-0000-8000-8000-00000000000b';
export const SHA_A = 'a'.repeat(64);
export const SHA_B = 'b'.repeat(64);

/** A pure create decision function for `CheckpointRegistryStore.mutate`. */
export function creating(name: string, op: string, gen = GEN_A, sha = SHA_A, at = 1_700_000_000_000_000) {
  const req = prepareCreate({ name, idempotencyKey: op });
  return (doc: RegistryDoc | null) => planCreate(doc, req, { generationUuid: gen, manifestSha256: sha }, at);
}

/** A pure delete decision function. */
export function deleting(name: string, op: string, at = 1_700_000_000_000_001) {
  const req = prepareDelete({ name, idempotencyKey: op });
  return (doc: RegistryDoc | null) => planDelete(doc, req, at);
}

/** Applies creates purely, returning the resulting document (for building states without disk). */
export function docWith(names: readonly string[]): RegistryDoc {
  let doc: RegistryDoc | null = null;
  names.forEach((name, i) => {
    const p = creating(name, uuidN(i + 1))(doc);
    if (!isPlan(p)) throw new Error('unexpected replay');
    doc = p.next;
  });
  if (doc === null) throw new Error('empty');
  return doc;
}

export type { CheckpointReceipt };


/** Builds a large valid document directly (no O(n²) replays): `active` rows then `tombstones`. */
export function bigDoc(active: number, tombstones: number, description: string | null = null): RegistryDoc {
  const rows: ActiveRow[] = [];
  const dead: TombstoneRow[] = [];
  let revision = 0;
  const row = (i: number): ActiveRow => {
    const req = prepareCreate({ name: `cp ${String(i).padStart(6, '0')}`, description, idempotencyKey: uuidN(i, '018f0f4e-7b8c-7000-8000-') });
    revision += 1;
    return {
      checkpoint_uuid: req.checkpointUuid,
      name: req.name,
      generation_uuid: GEN_A,
      generation_manifest_sha256: SHA_A,
      description: req.description,
      created_at: 1_700_000_000_000_000 + i,
      created_by: null,
      create_operation_uuid: req.operationUuid,
      create_request_sha256: req.requestSha256,
      created_revision: revision,
    };
  };
  for (let i = 0; i < tombstones; i++) {
    const r = row(i);
    const del = prepareDelete({ name: r.name, idempotencyKey: uuidN(i, '018f0f4e-7b8c-7000-9000-') });
    revision += 1;
    dead.push({ ...r, deleted_at: r.created_at + 1, deleted_by: null, delete_operation_uuid: del.operationUuid, delete_request_sha256: del.requestSha256, deleted_revision: revision });
  }
  for (let i = 0; i < active; i++) rows.push(row(tombstones + i));
  return {
    format: REGISTRY_FORMAT,
    format_version: REGISTRY_FORMAT_VERSION,
    revision,
    active: rows.sort(compareActive),
    tombstones: dead.sort(compareTombstones),
  };
}
