// Ledger evidence that names a workspace generation: a `patch_applied` step
// records `sha256:<manifest sha256>` of the generation it published. Chain
// events carry no actor (CHAIN.md's bytes stay as they are); who published the
// linked generation is the workspace lineage's record of it.
import { evidenceManifestSha256, type EvidenceGeneration, type LinkedGeneration } from '../contract/chain';
import { microsIso } from '../contract/time';
import type { LineageRecord } from '../project/index';

/**
 * Each distinct digest of `digests` that names a manifest, with the
 * earliest-published generation of `lineage` that has it (null: none has);
 * null when there is no lineage to look in (ledgers of no workspace).
 */
export function evidenceGenerations(lineage: readonly LineageRecord[] | null, digests: Iterable<string | null>): readonly EvidenceGeneration[] | null {
  if (lineage === null) return null;
  const wanted = new Map<string, string>();
  for (const d of digests) {
    const manifest = evidenceManifestSha256(d);
    if (d !== null && manifest !== null) wanted.set(d, manifest);
  }
  if (wanted.size === 0) return [];
  const byManifest = new Map<string, LinkedGeneration>();
  const manifests = new Set(wanted.values());
  for (const r of lineage) {
    if (!manifests.has(r.manifestSha256) || byManifest.has(r.manifestSha256)) continue;
    byManifest.set(r.manifestSha256, { generation_uuid: r.generationUuid, seq: r.seq, published_at: microsIso(BigInt(r.publishedAt)), actor: r.actor });
  }
  return [...wanted].map(([evidence_digest, manifest]) => ({ evidence_digest, generation: byManifest.get(manifest) ?? null }));
}
