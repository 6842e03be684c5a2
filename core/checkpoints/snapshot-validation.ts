// Validation of a generation's participants before a checkpoint or revert names it,
// with a bounded memo of results.
import diagnostics from 'node:diagnostics_channel';
import type { Table } from 'apache-arrow';
import { VALIDATION_PROGRESS_CHANNEL } from '../contract/workspace';
import { ArrowFileRows } from '../canonical/arrow-file-rows';
import { RECORD_FAMILIES, SNAPSHOT_RULES, familyByKey, runSnapshotRules, snapshotColumns, validateParticipant } from '../participants/index';
import { openObjectVerified } from '../project/index';
import type { Lease, ParticipantCatalog, ProjectCaches, SnapshotTables, VerifiedObject } from '../project/index';

/** Most results a memo keeps (oldest forgotten first). */
export const VALIDATION_MEMO_MAX_ENTRIES = 4096;

/**
 * Results of validators that passed, keyed by the content digests they read.
 *
 * A domain rule set reads one participant, a cross-domain rule the families
 * it declares in `reads`; its verdict is a pure function of those exact
 * bytes (content-addressed, verified against their names before decoding).
 * Only passes are remembered, and only after actually running here: a memo
 * never vouches for bytes it has not checked. Bounded; one per open project
 * (`projectValidationMemo`) unless a caller passes its own.
 */
export class ValidationMemo {
  readonly #passed = new Set<string>();
  readonly #max: number;
  hits = 0;
  misses = 0;

  constructor(maxEntries = VALIDATION_MEMO_MAX_ENTRIES) {
    this.#max = maxEntries;
  }

  /** True when this exact check already passed. */
  has(key: string): boolean {
    const hit = this.#passed.has(key);
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  /** Remembers a pass. */
  add(key: string): void {
    if (this.#passed.size >= this.#max) {
      const oldest = this.#passed.values().next().value;
      if (oldest !== undefined) this.#passed.delete(oldest);
    }
    this.#passed.add(key);
  }

  /** Number of remembered passes. */
  get size(): number {
    return this.#passed.size;
  }

  /** Forgets everything (the project closed; tests, benchmarks' cold runs). */
  clear(): void {
    this.#passed.clear();
    this.hits = 0;
    this.misses = 0;
  }
}

/** The open project's validation memo: what checkpoints, revert and the demo's publications consult by default. */
export function projectValidationMemo(caches: ProjectCaches): ValidationMemo {
  return caches.layer(ValidationMemo);
}

/**
 * Every domain and cross-domain validator over a complete candidate snapshot.
 *
 * Same rules and order as `validateSnapshot` with nothing skipped: first each
 * participant's domain rules (registry order), then every `SNAPSHOT_RULES`
 * entry. A check whose inputs (family key + content SHA-256, or absence) are
 * in `memo` as passed is not re-run; everything else is decoded and run, and
 * passes are remembered. Without digests nothing is reused.
 */
export function validateCompleteSnapshot(snapshot: SnapshotTables<Table>, memo: ValidationMemo): void {
  const { view } = snapshotColumns(snapshot);
  const present = new Map<string, string | undefined>();
  for (const key of snapshot.families()) present.set(key, snapshot.contentSha256?.(key));
  const keys = checkKeys(present);
  const domains = RECORD_FAMILIES.filter((family) => {
    if (!present.has(family.key)) return false;
    const memoKey = keys.domain(family.key);
    return memoKey === undefined || !memo.has(memoKey);
  });
  const pending = SNAPSHOT_RULES.filter((rule) => {
    if (familyByKey(rule.subject) === undefined) return false;
    const key = keys.rule(rule);
    return key === undefined || !memo.has(key);
  });
  const total = domains.length + pending.length;
  let done = 0;
  const step = (): void => {
    done++;
    if (validationProgress.hasSubscribers) validationProgress.publish({ done, total });
  };
  for (const family of domains) {
    const table = snapshot.file?.(family.key) ?? snapshot.get(family.key);
    if (table !== undefined) {
      validateParticipant(family, table);
      const memoKey = keys.domain(family.key);
      if (memoKey !== undefined) memo.add(memoKey);
    }
    step();
  }
  // In order, each participant released after the last pending rule that reads it.
  runSnapshotRules(pending, view, (rule) => {
    const key = keys.rule(rule);
    if (key !== undefined) memo.add(key);
    step();
  });
}

const validationProgress = diagnostics.channel(VALIDATION_PROGRESS_CHANNEL);

/**
 * The memo keys of a snapshot's checks: a domain check is keyed by its
 * family and content digest, a cross-domain rule by its id, subject and the
 * digests (or absence) of every family it reads. Undefined when an input
 * has no digest (nothing is reused then).
 */
function checkKeys(present: ReadonlyMap<string, string | undefined>): {
  domain(familyKey: string): string | undefined;
  rule(rule: (typeof SNAPSHOT_RULES)[number]): string | undefined;
} {
  const inputKey = (keys: readonly string[]): string | undefined => {
    const parts: string[] = [];
    for (const k of keys) {
      if (!present.has(k)) parts.push(`${k}=-`);
      else {
        const d = present.get(k);
        if (d === undefined) return undefined;
        parts.push(`${k}=${d}`);
      }
    }
    return parts.join(';');
  };
  return {
    domain: (familyKey) => {
      const k = inputKey([familyKey]);
      return k === undefined ? undefined : `domain|${k}`;
    },
    rule: (rule) => {
      const k = inputKey(rule.reads);
      return k === undefined ? undefined : `rule|${rule.id}|${rule.subject}|${k}`;
    },
  };
}

/**
 * Every check key `validateCompleteSnapshot` would record as passed for a
 * generation with exactly these participants (family key → content digest).
 *
 * A durable validation record says the complete validation of one manifest
 * passed; seeding a memo with these keys lets a later snapshot that shares
 * some of its inputs (a revert's staged copy of a checkpoint) skip exactly
 * the checks whose inputs are unchanged.
 */
export function completeValidationKeys(participants: ReadonlyMap<string, string>): string[] {
  const keys = checkKeys(participants);
  const out: string[] = [];
  for (const family of RECORD_FAMILIES) {
    if (!participants.has(family.key)) continue;
    const k = keys.domain(family.key);
    if (k !== undefined) out.push(k);
  }
  for (const rule of SNAPSHOT_RULES) {
    if (familyByKey(rule.subject) === undefined) continue;
    const k = keys.rule(rule);
    if (k !== undefined) out.push(k);
  }
  return out;
}

/**
 * Wraps a catalog so publication runs the complete validation above.
 *
 * Decoding and per-participant validation of staged bytes delegate to the
 * project's catalog; the cross-domain step (`validateSnapshot`) becomes the
 * complete, memoized check over every family of the candidate, whatever the
 * `changed` set says: a revert replaces the whole workspace at once.
 */
export function completeValidationCatalog<T>(catalog: ParticipantCatalog<T>, memo: ValidationMemo): ParticipantCatalog<T> {
  return {
    family: (c, f) => catalog.family(c, f),
    decode: (family, bytes) => catalog.decode(family, bytes),
    validateParticipant: (family, table) => catalog.validateParticipant(family, table),
    ...(catalog.validateFile === undefined ? {} : { validateFile: catalog.validateFile.bind(catalog) }),
    ...(catalog.mandatory === undefined ? {} : { mandatory: catalog.mandatory.bind(catalog) }),
    validateSnapshot: (snapshot) => validateCompleteSnapshot(snapshot as unknown as SnapshotTables<Table>, memo),
  };
}

/**
 * A lease's complete snapshot as validation reads it: Arrow participants by row ranges from their verified objects.
 *
 * Why: validating a whole generation (a checkpoint, the demo before one)
 * must never hold a participant of millions of records whole in memory; a
 * participant not in the plain single-batch layout is still decoded whole
 * (`get`). Every object opened is pushed to `opened`, which the caller
 * closes when validation ends (also when it throws).
 */
export function leaseSnapshotByRows(root: string, lease: Lease<Table>, opened: VerifiedObject[]): SnapshotTables<Table> {
  return {
    families: () => lease.families(),
    get: (key) => lease.readTable(key),
    contentSha256: (key) => lease.participant(key)?.contentSha256,
    file: (key) => {
      const entry = lease.participant(key);
      const family = familyByKey(key);
      if (entry === undefined || family === undefined || family.encoding !== 'arrow' || family.schemaFingerprint !== entry.schemaFingerprint) return undefined;
      const object = openObjectVerified(root, entry, lease.caches.verifiedObjects);
      opened.push(object);
      return ArrowFileRows.open(object, family.schemaFingerprint) ?? undefined;
    },
  };
}
