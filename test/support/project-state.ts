import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { openProject } from '../../core/project/index';
import { registryCatalog } from '../../core/participants/index';
import type { Project } from '../../core/project/index';

/** Everything a reader can observe of the selected generation. */
export interface ObservedState {
  readonly generationUuid: string | null;
  readonly manifestSha256: string | null;
  readonly participants: readonly { readonly family: string; readonly sha256: string; readonly rows: string }[];
}

function rowsOf(t: Table): string {
  return JSON.stringify(t.toArray().map((r) => r.toJSON()), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

/** Opens (recovering), pins CURRENT, verifies and decodes every participant, releases. */
export async function observe(dir: string): Promise<ObservedState> {
  const project = await openProject<Table>(dir, { catalog: registryCatalog });
  return observeProject(project);
}

/** Like `observe` on an already open project. */
export function observeProject(project: Project<Table>): ObservedState {
  if (project.state() === 'uninitialized') return { generationUuid: null, manifestSha256: null, participants: [] };
  const lease = project.lease();
  try {
    lease.verifyParticipants();
    return {
      generationUuid: lease.generationUuid,
      manifestSha256: lease.manifestSha256,
      participants: lease.manifest.participants.map((p) => ({
        family: `${p.capabilityId}/${p.recordFamilyId}`,
        sha256: p.contentSha256,
        rows: rowsOf(lease.readTable(`${p.capabilityId}/${p.recordFamilyId}`) as Table),
      })),
    };
  } finally {
    lease.release();
  }
}

/** SHA-256 of every file (relative name → digest) and every directory, for "changes no byte" checks. */
export function treeDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string): void => {
    for (const ent of fs.readdirSync(abs, { withFileTypes: true })) {
      const a = path.join(abs, ent.name);
      const r = rel === '' ? ent.name : `${rel}/${ent.name}`;
      if (ent.isDirectory()) {
        out[`${r}/`] = 'dir';
        walk(a, r);
      } else if (ent.isSymbolicLink()) out[r] = `link:${fs.readlinkSync(a)}`;
      else out[r] = createHash('sha256').update(fs.readFileSync(a)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}
