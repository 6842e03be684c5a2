import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { CAPABILITY_DECLARATION, DEFAULT_CONFIGURATION, PROVENANCE_EVENT, REGISTERED_CAPABILITIES, configurationDocumentBytes, encodeRecords, recordsFromTable } from '../../../../core/participants/index';
import type { ConfigurationDocument } from '../../../../core/participants/index';
import type { ParticipantChange, Project } from '../../../../core/project/index';

/** A deterministic engine clock: 1 µs per call from a fixed instant. */
export function counterClock(start = 1_760_000_000_000_000): () => number {
  let t = start;
  return () => (t += 1);
}

/** A temporary directory removed by the caller. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Builds the demo workspace (small) and opens it with checkpoint pins. */
export async function demoProject(dir: string, records = 200): Promise<Project<Table>> {
  await createDemoWorkspace(dir, { records, seed: 7 });
  return openCheckpointedProject(dir);
}

/**
 * Later changes in the scopes the demo script leaves alone after its first
 * steps (capabilities, provenance), so every scope differs from early checkpoints.
 */
export async function laterChangesEverywhere(project: Project<Table>): Promise<void> {
  const lease = project.lease();
  const events = recordsFromTable(PROVENANCE_EVENT, lease.readTable('provenance/event') as Table) as Record<string, unknown>[];
  lease.release();
  const edited = events.map((e, i) => (i === 0 ? { ...e, agent: 'agent-later-edit' } : e));
  await project.publish({
    parent: project.current()?.generationUuid ?? null,
    changes: [
      { kind: 'put', capabilityId: 'provenance', recordFamilyId: 'event', bytes: encodeRecords(PROVENANCE_EVENT, edited) },
      {
        kind: 'put',
        capabilityId: 'capabilities',
        recordFamilyId: 'declaration',
        bytes: encodeRecords(
          CAPABILITY_DECLARATION,
          REGISTERED_CAPABILITIES.map((c) => ({ capability_id: c.capabilityId, capability_version: c.capabilityVersion, enabled: true, declared_at: 1_790_000_000_000_000n })),
        ),
      },
    ],
  });
}

/**
 * A workspace/configuration put that differs per label (its embedding `model_id`, as the fixtures' putConfig)
 * and keeps CURRENT's ontology mode: the configuration repeats the ontology document's mode
 * (rule workspace.configuration.ontology_mode_matches), and the demo's ontology is not "none".
 */
export function putConfigKeepingMode(project: Project<Table>, label: string): ParticipantChange {
  const lease = project.lease();
  let mode: ConfigurationDocument['ontology_mode'] = DEFAULT_CONFIGURATION.ontology_mode;
  try {
    const rows = (lease.readTable('workspace/configuration') as Table | undefined)?.toArray() ?? [];
    const row = rows.find((r: { field?: string }) => r.field === 'ontology_mode') as { value: string } | undefined;
    if (row !== undefined) mode = JSON.parse(row.value) as ConfigurationDocument['ontology_mode'];
  } finally {
    lease.release();
  }
  const modelId = label.toLowerCase().replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]/, 'x').slice(0, 128);
  return {
    kind: 'put',
    capabilityId: 'workspace',
    recordFamilyId: 'configuration',
    bytes: configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, ontology_mode: mode, embedding_configuration: { model_id: modelId } }),
  };
}

/** Decoded rows of every family of a lease-like source, as JSON text (logical content). */
export function logicalRows(t: Table | undefined): string {
  if (t === undefined) return 'absent';
  return JSON.stringify(t.toArray().map((r) => r.toJSON()), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

/** The error code of a call ('accepted' when it succeeds). */
export async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
    return 'accepted';
  } catch (e) {
    return (e as { code?: string }).code ?? 'not-a-gf-error';
  }
}
