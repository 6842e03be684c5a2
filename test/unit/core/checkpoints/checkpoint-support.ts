import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { Checkpoints, checkpointPins } from '../../../../core/checkpoints/checkpoints';
import { createProject, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { Project } from '../../../../core/project/index';
import { putConfig, putNodes } from '../../../support/project-fixtures';

/** A deterministic engine clock: 1 µs per call from a fixed instant. */
export function counterClock(start = 1_750_000_000_000_000): () => number {
  let t = start;
  return () => (t += 1);
}

export interface Workspace {
  readonly dir: string;
  readonly project: Project<Table>;
  readonly cps: Checkpoints;
  /** Publishes one generation with `nodes` graph nodes tagged `tag`; returns its UUID. */
  publish(tag: string, nodes?: number): Promise<string>;
  reopen(): Promise<Workspace>;
  close(): void;
}

async function wrap(dir: string, project: Project<Table>): Promise<Workspace> {
  const cps = new Checkpoints(project, { clock: counterClock() });
  const ws: Workspace = {
    dir,
    project,
    cps,
    async publish(tag, nodes = 3) {
      const parent = project.current()?.generationUuid ?? null;
      const r = await project.publish({ parent, changes: [putNodes(nodes, tag), putConfig(tag)] });
      return r.generationUuid;
    },
    async reopen() {
      const p = await openProject<Table>(dir, { catalog: registryCatalog, pins: checkpointPins(dir), retainAncestors: 0 });
      return wrap(dir, p);
    },
    close() {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    },
  };
  return ws;
}

/** A fresh project with checkpoint pins and no ancestor window (so retention is only what pins keep). */
export async function workspace(): Promise<Workspace> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-cp-'));
  const dir = path.join(base, 'ws');
  const project = await createProject<Table>(dir, { catalog: registryCatalog, pins: checkpointPins(dir), retainAncestors: 0 });
  return wrap(dir, project);
}

/** The error code of a sync or async call ('accepted' when it succeeds). */
export async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
    return 'accepted';
  } catch (e) {
    return (e as { code?: string }).code ?? `untyped: ${String(e)}`;
  }
}

/** Generation directories present on disk. */
export function generationsOnDisk(ws: Workspace): string[] {
  return ws.project.listGenerations().map((g) => g.generationUuid).sort();
}
