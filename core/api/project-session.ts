// One open project behind an API handle: the stores and caches every operation
// on that handle shares, from `project.open` / `project.create` until
// `project.close` (or the facade's close). The app (Electron main), `gf serve`
// and each `gf` command reach a project only through one of these, so nothing
// the operations remember about a project outlives it or leaks into another.
import { basename, resolve } from 'node:path';
import type { Table } from 'apache-arrow';
import { Checkpoints, openCheckpointedProject, type MicrosClock } from '../checkpoints/checkpoints';
import { CheckpointRegistryStore, RegistryMemos } from '../checkpoints/registry-store';
import { projectValidationMemo, type ValidationMemo } from '../checkpoints/snapshot-validation';
import type { RestorationSummary } from '../contract/operations';
import { diffCachesOf, type DiffCaches } from '../diff/index';
import { GraphDiffMemo } from '../graph/graph-diff';
import type { Project, ProjectCaches } from '../project/index';
import { RevertEngine, type RevertOptions } from '../revert/revert';

/** What a session remembers about its project between operations (released at close). */
export interface SessionCaches {
  /** The checkpoint registry reads and lineage scans its registry store made. */
  readonly registry: RegistryMemos;
  /** Restoration records already read, by `generationUuid/manifestSha256` (a manifest never changes under its digest). */
  readonly restorations: Map<string, RestorationSummary | null>;
  /** Decoded graph participants and edge fingerprints of graph diff pages. */
  readonly graph: GraphDiffMemo;
  /**
   * The open project's own caches (`Project.caches`): parsed manifests by
   * digest, verified objects under the racy-clean rule, and the memos below,
   * which live in it.
   */
  readonly project: ProjectCaches;
  /** The diff's memos of the project's objects: sorted layouts, participant layouts and scratch buffers, decoded display sides. */
  readonly diff: DiffCaches;
  /** Validation passes by content digest, shared by checkpoint create, revert and the demo's publications. */
  readonly validation: ValidationMemo;
}

/** A resource tied to the session (a view, the project's chain store), released when the session closes. */
export type SessionCloser = () => Promise<void> | void;

/** Options of a session. */
export interface ProjectSessionOptions {
  /** Engine clock for checkpoint and revert records (default: the system clock). */
  readonly micros?: MicrosClock;
  /** How old the registry files must be before the session remembers a read of them (default: the store's racy-clean age; tests set 0). */
  readonly registryMemoMinAgeNs?: bigint;
}

/**
 * One open project: the project, its checkpoint registry store, its caches
 * and the resources opened through it.
 *
 * `checkpoints()` and `revertEngine()` hand out facades over the session's one
 * registry store (a writer-lock wait is per request, the store is not).
 */
export class ProjectSession {
  readonly project: Project<Table>;
  readonly label: string;
  readonly registry: CheckpointRegistryStore;
  readonly caches: SessionCaches;
  /** Extra resources tied to the project (chain stores, views), closed with it. */
  readonly closers = new Set<SessionCloser>();
  readonly #micros: MicrosClock | undefined;
  #checkpoints: Checkpoints | undefined;
  #closed = false;

  private constructor(project: Project<Table>, registry: CheckpointRegistryStore, caches: SessionCaches, label: string, options: ProjectSessionOptions) {
    this.project = project;
    this.registry = registry;
    this.caches = caches;
    this.label = label;
    this.#micros = options.micros;
  }

  /**
   * Opens the project at `dir` (absolute) with the checkpoint retention pins,
   * which read the registry through the session's own store. The label is
   * the last name of `given` (the path as the caller gave it).
   */
  static async open(dir: string, given: string, options: ProjectSessionOptions = {}): Promise<ProjectSession> {
    const memos = new RegistryMemos();
    const registry = new CheckpointRegistryStore(resolve(dir), {
      memos,
      ...(options.registryMemoMinAgeNs === undefined ? {} : { memoMinAgeNs: options.registryMemoMinAgeNs }),
    });
    const project = await openCheckpointedProject(registry.root, {}, registry);
    const caches: SessionCaches = {
      registry: memos,
      restorations: new Map(),
      graph: new GraphDiffMemo(),
      project: project.caches,
      diff: diffCachesOf(project.caches),
      validation: projectValidationMemo(project.caches),
    };
    return new ProjectSession(project, registry, caches, basename(given) || 'project', options);
  }

  /** The project's checkpoints over the session's registry store; `writerTimeoutMs` waits for the writer lock. */
  checkpoints(writerTimeoutMs?: number): Checkpoints {
    const clock = this.#micros === undefined ? {} : { clock: this.#micros };
    if (writerTimeoutMs !== undefined) return new Checkpoints(this.project, { ...clock, writerTimeoutMs, registry: this.registry });
    this.#checkpoints ??= new Checkpoints(this.project, { ...clock, registry: this.registry });
    return this.#checkpoints;
  }

  /** A revert engine over the session's checkpoints (the session's clock unless `options` names one). */
  revertEngine(options: Omit<RevertOptions, 'checkpoints'> = {}): RevertEngine {
    const clock = this.#micros === undefined ? {} : { clock: this.#micros };
    return new RevertEngine(this.project, { ...clock, ...options, checkpoints: this.checkpoints() });
  }

  /** True once the session was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Releases every resource opened through the session, then forgets what it remembered. Runs once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of [...this.closers]) await c();
    this.closers.clear();
    this.caches.registry.clear();
    this.caches.restorations.clear();
    this.caches.graph.clear();
    this.caches.project.clear(); // the diff and validation memos with it
    this.#checkpoints = undefined;
  }
}
