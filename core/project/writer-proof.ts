// Evidence that the caller holds a project's writer lock, checked at run time.
import path from 'node:path';

/**
 * Evidence that the caller holds a project's writer lock, checked at run time.
 *
 * ADR-0014's lock order is writer.lock, then `locks/checkpoints.lock`, never
 * the reverse. A registry mutation takes a proof instead of trusting a comment:
 * `withWriter` issues one for exactly the time it holds the lock, for its own
 * project. A proof that was never issued, was revoked (its `withWriter`
 * ended) or names another project is refused.
 */
export interface WriterLockProof {
  /** The project directory whose writer lock is held (as given by the caller). */
  readonly root: string;
}

const LIVE = new WeakMap<WriterLockProof, { readonly root: string; live: boolean }>();

/** Issues a proof for `root`; the caller must hold `root`'s writer lock until it calls `revoke`. */
export function issueWriterProof(root: string): { readonly proof: WriterLockProof; readonly revoke: () => void } {
  const proof: WriterLockProof = Object.freeze({ root });
  const entry = { root: path.resolve(root), live: true };
  LIVE.set(proof, entry);
  return {
    proof,
    revoke: () => {
      entry.live = false;
    },
  };
}

/** Throws unless `proof` is a live proof of the writer lock of the project at `root`. */
export function assertWriterLockHeld(proof: WriterLockProof | undefined, root: string, operation: string): void {
  const entry = proof === undefined ? undefined : LIVE.get(proof);
  if (entry === undefined || !entry.live || entry.root !== path.resolve(root)) {
    const why = entry === undefined ? 'no writer lock proof' : !entry.live ? 'the writer lock was released' : 'the writer lock of another project';
    throw new Error(`invariant violated: ${operation} needs the project's writer lock, held (lock order: writer, then checkpoints); got ${why}`);
  }
}
