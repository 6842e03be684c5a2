// The engine side of `project.doctor` (`gf doctor`), loaded by the facade when the operation runs.
import path from 'node:path';
import { SqliteChainStore } from '../chain/sqlite/sqlite-store';
import { CheckpointRegistryStore } from '../checkpoints/registry-store';
import { GfError, isGfError } from '../errors';
import { diagnoseProject, repairProject } from '../project/doctor';
import type { Anomaly } from '../project/doctor';
import { FORMAT_BYTES } from '../project/formats';
import { readFileNoFollow } from '../project/durable-fs';
import { LAYOUT } from '../project/layout';

export { repairProject };
export type { Anomaly };

/** How to recover from a registry read failure. */
function registryRemedy(e: unknown): string {
  if (isGfError(e) && e.details['reason'] === 'pair_missing') {
    return 'restore both checkpoints/registry.json and checkpoints/registry.json.sha256 from a backup of this workspace (they are the checkpoint list); until then cleanup deletes nothing and checkpoint operations are refused';
  }
  return 'restore checkpoints/ from a backup; cleanup deletes nothing while it is corrupt';
}

/** Every anomaly of the workspace at `root`: the project's own, the registry's and each unreadable ledger. */
export async function diagnose(root: string): Promise<Anomaly[]> {
  const format = readFileNoFollow(path.join(root, LAYOUT.format), LAYOUT.format, 256);
  if (format === undefined || Buffer.compare(Buffer.from(format), Buffer.from(FORMAT_BYTES)) !== 0) {
    throw new GfError('GF_UNSUPPORTED_PROJECT_FORMAT', 'not a project (no FORMAT)', {});
  }
  const out = diagnoseProject(root);
  try {
    // The bytes themselves, even when this process read them before and remembers them unchanged.
    new CheckpointRegistryStore(root).read({ revalidate: true });
  } catch (e) {
    out.push({ path: 'checkpoints/registry.json', problem: isGfError(e) ? e.message : 'the checkpoint registry cannot be read', remedy: registryRemedy(e), repairable: false });
  }
  const store = new SqliteChainStore(path.join(root, LAYOUT.chain));
  try {
    for (const l of await store.scanLedgers()) {
      if (l.kind === 'unreadable') out.push({ path: l.ledger, problem: `unreadable ledger (${l.cause})`, remedy: 'restore this ledger from a backup; the others verify independently', repairable: false });
    }
  } finally {
    await store.close();
  }
  return out;
}
