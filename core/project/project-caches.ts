// What one open project remembers between reads: its parsed manifests, its
// verified objects, and the memos the layers above keep per project (the diff's,
// the validation memo). Made with the `Project`, cleared when it is closed.
import { ManifestMemo } from './formats';
import { VerifiedObjectMemo } from './verified-objects';

/** A memo a layer above the project keeps per open project (it forgets everything on `clear`). */
export interface LayerCache {
  clear(): void;
}

/**
 * The caches of one open project.
 *
 * Every entry is keyed by immutable content (manifest and object digests,
 * family keys), so nothing here needs invalidation, only a bound; owning
 * them per project means two projects open in one process share none, and
 * closing a project releases them. The project layer's own two are fields;
 * a layer above (the diff, checkpoint validation) that may not be imported
 * from here keeps its memo in `layer`, one per memo class.
 */
export class ProjectCaches {
  /** Manifests accepted, by the SHA-256 of their exact bytes (64). */
  readonly manifests = new ManifestMemo();
  /** Objects verified against their names, with the file identity seen then (4096, racy-clean rule). */
  readonly verifiedObjects = new VerifiedObjectMemo();
  readonly #layers = new Map<new () => LayerCache, LayerCache>();

  /** This project's memo of class `kind`: made on first use, the same one after. */
  layer<C extends LayerCache>(kind: new () => C): C {
    let c = this.#layers.get(kind);
    if (c === undefined) {
      c = new kind();
      this.#layers.set(kind, c);
    }
    return c as C;
  }

  /** True once a layer made its memo of class `kind` here (tests and diagnostics). */
  hasLayer(kind: new () => LayerCache): boolean {
    return this.#layers.has(kind);
  }

  /** Forgets everything this project remembered (it closed). */
  clear(): void {
    this.manifests.clear();
    this.verifiedObjects.clear();
    for (const c of this.#layers.values()) c.clear();
    this.#layers.clear();
  }
}
