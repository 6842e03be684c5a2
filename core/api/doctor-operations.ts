// The engine side of `project.doctor` (`gf doctor`), loaded by the facade when the operation runs.
import path from 'node:path';
import { SqliteChainStore } from '../chain/sqlite/sqlite-store';
import { checkpointPins } from '../checkpoints/checkpoints';
import { pinnedGenerations } from '../checkpoints/registry-core';
import { CheckpointRegistryStore } from '../checkpoints/registry-store';
import { removeRevertReceiptTemps, revertReceiptTemps } from '../checkpoints/revert-receipts';
import { GfError, isGfError } from '../errors';
import { diagnoseProject, repairProject as repairProjectLocked } from '../project/doctor';
import type { Anomaly } from '../project/doctor';
import { FORMAT_BYTES } from '../project/formats';
import { readFileNoFollow } from '../project/durable-fs';
import { LAYOUT } from '../project/layout';
import { cacheAnomalies, removeCacheLeftovers } from './doctor-caches';

export type { Anomaly };

function requireProject(root: string): void {
  const format = readFileNoFollow(path.join(root, LAYOUT.format), LAYOUT.format, 256);
  if (format === undefined || Buffer.compare(Buffer.from(format), Buffer.from(FORMAT_BYTES)) !== 0) {
    throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'not a project (no FORMAT)', {});
  }
}

/**
 * `repair: true`: recovery, the cleanup the next publication would run (with the checkpoint
 * registry's pins, which first archive published revert receipts as that cleanup does) and the
 * derived caches' leftovers, all under the writer lock.
 */
export function repairProject(root: string): { readonly rebuiltCurrent: string | null } {
  requireProject(root);
  return repairProjectLocked(root, {
    pins: checkpointPins(root),
    alsoLocked: (writer) => {
      const registry = new CheckpointRegistryStore(root);
      const left = registry.leftovers();
      // The registry's own recovery table completes or rolls back the interrupted change (a corrupt registry is refused, untouched).
      if (left.intent !== null || left.strays.length > 0) registry.recover(writer);
      removeRevertReceiptTemps(root);
      removeCacheLeftovers(root);
    },
  });
}

/** What an interrupted checkpoint registry change and a killed revert's receipt write left. */
function checkpointLeftovers(root: string): Anomaly[] {
  const left = new CheckpointRegistryStore(root).leftovers();
  const out: Anomaly[] = [];
  const remedy = 'the next checkpoint create, delete or revert completes or rolls it back (`gf doctor --repair` does the same now)';
  if (left.intent !== null) out.push({ path: left.intent, problem: 'an interrupted checkpoint registry change (its intent)', remedy, repairable: true, leftover: 'registry_change' });
  for (const rel of left.staged) out.push({ path: rel, problem: 'a next registry file staged by the interrupted checkpoint registry change', remedy, repairable: true, leftover: 'registry_change' });
  for (const rel of left.strays) out.push({ path: rel, problem: 'a temp file of a checkpoint registry change killed before its intent was written', remedy, repairable: true, leftover: 'temp_file' });
  for (const rel of revertReceiptTemps(root)) {
    out.push({ path: rel, problem: 'a temp file of a revert receipt write that was killed', remedy: 'safe to remove with no writer running (`gf doctor --repair`)', repairable: true, leftover: 'temp_file' });
  }
  return out;
}

/** How to recover from a registry read failure. */
function registryRemedy(e: unknown): string {
  if (isGfError(e) && e.details['reason'] === 'pair_missing') {
    return 'restore both checkpoints/registry.json and checkpoints/registry.json.sha256 from a backup of this workspace (they are the checkpoint list); until then cleanup deletes nothing and checkpoint operations are refused';
  }
  return 'restore checkpoints/ from a backup; cleanup deletes nothing while it is corrupt';
}

/** Every anomaly of the workspace at `root`: the project's own, the registry's and each unreadable ledger. */
export async function diagnose(root: string): Promise<Anomaly[]> {
  requireProject(root);
  const registry = new CheckpointRegistryStore(root);
  // Read-only pins: what the registry names now (a repair's pins also archive revert receipts, a write).
  const out = diagnoseProject(root, { pins: { pinnedGenerations: () => pinnedGenerations(registry.read().doc) } });
  out.push(...cacheAnomalies(root));
  out.push(...checkpointLeftovers(root));
  try {
    // The bytes themselves, even when this process read them before and remembers them unchanged.
    new CheckpointRegistryStore(root).read({ revalidate: true });
  } catch (e) {
    out.push({ path: 'checkpoints/registry.json', problem: isGfError(e) ? e.message : 'the checkpoint registry cannot be read', remedy: registryRemedy(e), repairable: false, leftover: null });
  }
  const store = new SqliteChainStore(path.join(root, LAYOUT.chain));
  try {
    for (const l of await store.scanLedgers()) {
      if (l.kind === 'unreadable') out.push({ path: l.ledger, problem: `unreadable ledger (${l.cause})`, remedy: 'restore this ledger from a backup; the others verify independently', repairable: false, leftover: null });
    }
  } finally {
    await store.close();
  }
  return out;
}
