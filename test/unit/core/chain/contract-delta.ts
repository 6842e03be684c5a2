/**
 * AC-15's additive-vs-breaking classifier of the chain contract snapshot.
 *
 * Additive: only additions (a new port member, a new semantic boundary kind,
 * a new error id, a new legal transition, a larger event cap). Breaking:
 * anything removed or changed (a renamed or retyped member, a removed
 * boundary kind, a smaller cap, a different schema or genesis).
 */
export type ContractDelta = 'none' | 'additive' | 'breaking';

type Snapshot = Readonly<Record<string, unknown>>;

function listDelta(before: readonly unknown[], after: readonly unknown[]): ContractDelta {
  const a = new Set(after.map((v) => JSON.stringify(v)));
  const b = new Set(before.map((v) => JSON.stringify(v)));
  for (const v of b) if (!a.has(v)) return 'breaking';
  return a.size > b.size ? 'additive' : 'none';
}

function mapOfListsDelta(before: Record<string, readonly unknown[]>, after: Record<string, readonly unknown[]>): ContractDelta {
  let out: ContractDelta = 'none';
  for (const k of Object.keys(before)) {
    const next = after[k];
    if (next === undefined) return 'breaking';
    const d = listDelta(before[k] as readonly unknown[], next);
    if (d === 'breaking') return 'breaking';
    if (d === 'additive') out = 'additive';
  }
  return Object.keys(after).some((k) => !(k in before)) ? 'additive' : out;
}

/** Classifies the change from the golden snapshot `before` to the current `after`. */
export function classifyContractDelta(before: Snapshot, after: Snapshot): ContractDelta {
  let out: ContractDelta = 'none';
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[key];
    const a = after[key];
    let d: ContractDelta;
    if (b === undefined) d = 'additive';
    else if (a === undefined) d = 'breaking';
    else if (key === 'max_event_bytes') d = (a as number) > (b as number) ? 'additive' : (a as number) < (b as number) ? 'breaking' : 'none';
    else if (key === 'legal_transitions') d = mapOfListsDelta(b as Record<string, unknown[]>, a as Record<string, unknown[]>);
    else if (Array.isArray(b) && Array.isArray(a)) d = listDelta(b, a);
    else d = JSON.stringify(a) === JSON.stringify(b) ? 'none' : 'breaking';
    if (d === 'breaking') return 'breaking';
    if (d === 'additive') out = 'additive';
  }
  return out;
}

/** The directive a drifted contract prints (S2-01 AC-15). */
export function driftDirective(delta: ContractDelta): string {
  if (delta === 'additive') {
    return 'Chain contract drift (additive: a new optional member, adapter, error id or semantic boundary kind). Regenerate the golden with GF_UPDATE_GOLDENS=1 and amend ADR-0003 §Decision.';
  }
  return 'Chain contract drift (BREAKING: a renamed or retyped port member, a removed semantic boundary kind, a smaller event cap or a changed schema). This needs an ADR-0003 amendment and a review of every adapter (Postgres included) per ADR-0003 §Consequences.';
}
