// project.publish, demo.create, canonical.vectors and project.doctor: the
// operations the `gf` CLI runs besides the screens' ones, behind the same
// dispatcher. Heavy engine parts (demo generator, golden vectors, doctor)
// load when their operation first runs, so the facade stays light to build.
import { GfError } from '../errors';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';
import { requireAbsolute } from './absolute-path';
import { type ParticipantChange } from '../project/index';
import { registryCatalog } from '../participants/index';

const DIRECTORY = { sentence: 'the directory must be an absolute path', field: 'path', committed: false } as const;

/** A registered family, or `GF_VALIDATION` naming the change's position (never its text). */
function registered(capabilityId: string, recordFamilyId: string, index: number): { capabilityId: string; recordFamilyId: string } {
  if (registryCatalog.family(capabilityId, recordFamilyId) === undefined) {
    throw new GfError('GF_VALIDATION', 'not a registered record family (expected CAPABILITY/FAMILY)', { change: index }, false);
  }
  return { capabilityId, recordFamilyId };
}

/** project.publish / demo.create / canonical.vectors / project.doctor implementations. */
export function maintenanceOperations(projects: SessionTable<ProjectSession>) {
  return {
    'project.publish': async ({ project, changes, timeout_ms }) => {
      const p = projects.get(project).project;
      const parsed: ParticipantChange[] = changes.map((c, i) =>
        c.kind === 'put'
          ? { kind: 'put' as const, ...registered(c.capability_id, c.record_family_id, i), bytes: new Uint8Array(Buffer.from(c.bytes_base64, 'base64')) }
          : { kind: 'remove' as const, ...registered(c.capability_id, c.record_family_id, i) },
      );
      // The project was opened with the checkpoint registry's pins: the publish's cleanup keeps checkpointed generations.
      const r = await p.withWriter((w) => w.publish({ parent: w.current()?.generationUuid ?? null, changes: parsed }), { timeoutMs: timeout_ms ?? 0 });
      return {
        generation_uuid: r.generationUuid,
        manifest_sha256: r.manifestSha256,
        transaction_uuid: r.transactionUuid,
        parent_generation_uuid: r.parentGenerationUuid,
        removed_generations: r.cleanup.removedGenerations.length,
      };
    },
    'demo.create': async ({ path, records, seed }) => {
      const { createDemoWorkspace } = await import('../demo/index');
      const dir = requireAbsolute(path, DIRECTORY);
      const r = await createDemoWorkspace(dir, { records, seed });
      // Agent threads: a real LangGraph run beside the workspace.
      const { writeLangGraphDemo } = await import('../demo/langgraph-demo');
      const threads = await writeLangGraphDemo(dir);
      return {
        records: r.records,
        seed: r.seed,
        generations: r.generations.map((g) => ({ step: g.step, generation_uuid: g.generationUuid, manifest_sha256: g.manifestSha256 })),
        langgraph: { path: threads.path, threads: threads.threads },
      };
    },
    'canonical.vectors': async ({ text }) => {
      let file: unknown;
      try {
        file = JSON.parse(text) as unknown;
      } catch {
        throw new GfError('GF_VALIDATION', 'the vector file is not JSON', {});
      }
      const { computeVectors } = await import('../canonical/golden-vectors');
      return { results: computeVectors(file) };
    },
    'project.doctor': async ({ path, repair }) => {
      const { diagnose, repairProject } = await import('./doctor-operations');
      const root = requireAbsolute(path, DIRECTORY);
      if (repair !== true) return { anomalies: await diagnose(root), rebuilt_current: null, repaired: [] };
      const before = await diagnose(root);
      const { rebuiltCurrent } = repairProject(root);
      const anomalies = await diagnose(root);
      const left = new Set(anomalies.map((a) => `${a.path}\n${a.problem}`));
      return { anomalies, rebuilt_current: rebuiltCurrent, repaired: before.filter((a) => a.repairable && !left.has(`${a.path}\n${a.problem}`)) };
    },
  } satisfies PartialImplementations;
}
