// adopt_ontology / clear_ontology and the workspace document inspections
// (ADR-0014 "Complete workspace"). Both writes publish ONE generation through
// the ordinary publication protocol, replayable by idempotency key.
import type { Table } from 'apache-arrow';
import { canonicalJson, isCanonicalUuid, parseUuid, sha256, sha256Hex, uuidV8 } from '../canonical/index';
import { GfError, isGfError } from '../errors';
import { WORKSPACE_DOCUMENT_VERSION, ADOPT_MODES, ONTOLOGY_SOURCE_FORMATS } from '../contract/workspace';
import type { OntologyMode, OntologySourceFormat } from '../contract/workspace';
import {
  DEFAULT_CONFIGURATION,
  NO_ONTOLOGY,
  WORKSPACE_CONFIGURATION,
  WORKSPACE_ONTOLOGY,
  adoptedOntology,
  assertConfiguration,
  canonicalOntologyModel,
  configurationDocumentBytes,
  documentField,
  columnsOf,
  ontologyDocumentBytes,
} from '../participants/index';
import type { ConfigurationDocument, OntologyDocument, OntologyModel } from '../participants/index';
import type { Project, Writer } from '../project/index';
import type { JsonValue } from '../project/index';
import { WORKSPACE_ONTOLOGY_EXTENSION_KIND, lookupRevertReceipt, prunedReceiptError, recordRevertReceipt } from '../checkpoints/revert-receipts';
import { parseOntologyInputInBackground } from './ontology-input';

/** The two ontology writes (`ontology_receipt@1.operation`). */
export type OntologyOperation = 'adopt_ontology' | 'clear_ontology';

/** The receipt of an adopt or clear: a pure function of the durable journal extension (identical on replay). */
export interface OntologyReceipt {
  readonly operation: OntologyOperation;
  readonly operation_uuid: string;
  readonly mode: OntologyMode;
  readonly source_format: OntologySourceFormat | null;
  readonly canonical_ontology_sha256: string | null;
  readonly prior_current_generation_uuid: string | null;
  readonly result_generation_uuid: string;
}

/** What `workspace_ontology()` returns (one row of `workspace_ontology_info@1`). */
export interface OntologyInfo {
  readonly generation_uuid: string;
  readonly mode: OntologyMode;
  readonly class_count: number;
  readonly relation_count: number;
  readonly source_format: OntologySourceFormat | null;
  readonly contract_version: number;
  readonly canonical_ontology_sha256: string | null;
  readonly document_sha256: string | null;
  readonly canonical_ontology: string | null;
}

/** What `workspace_configuration()` returns (one row of `workspace_configuration_info@1`). */
export interface ConfigurationInfo {
  readonly generation_uuid: string;
  readonly ontology_mode: OntologyMode;
  readonly capability_configuration: string;
  readonly embedding_configuration: string;
  readonly contract_version: number;
  readonly document_sha256: string | null;
}

/** Input of `adoptOntology`. */
export interface AdoptInput {
  readonly source: unknown;
  readonly sourceFormat: unknown;
  readonly mode: unknown;
  readonly idempotencyKey: unknown;
  readonly actorUuid?: unknown;
}

/** Input of `clearOntology`. */
export interface ClearInput {
  readonly idempotencyKey: unknown;
  readonly actorUuid?: unknown;
}

const REQUEST_DOMAIN = 'graphforge-workspace-ontology-request/1';
const TRANSACTION_DOMAIN = 'graphforge-workspace-ontology-transaction/1';
const encoder = new TextEncoder();

interface Extension {
  readonly kind: typeof WORKSPACE_ONTOLOGY_EXTENSION_KIND;
  readonly operation: OntologyOperation;
  readonly operation_uuid: string;
  readonly request_sha256: string;
  readonly mode: OntologyMode;
  readonly source_format: OntologySourceFormat | null;
  readonly canonical_ontology_sha256: string | null;
  readonly actor_uuid: string | null;
  readonly prior_current_generation_uuid: string | null;
  readonly result_generation_uuid: string;
  readonly transaction_uuid: string;
  /** UTC microseconds of the publication, sampled once when the journal is first written (a resume reuses it). */
  readonly published_at?: number;
}

interface Request {
  readonly operation: OntologyOperation;
  readonly operationUuid: string;
  readonly actorUuid: string | null;
  readonly ontology: OntologyDocument;
}

function invalid(field: string, message: string): GfError {
  return new GfError('GF_VALIDATION', message, { field }, false);
}

function key(v: unknown): string {
  if (typeof v !== 'string' || !isCanonicalUuid(v) || v !== v.toLowerCase()) throw invalid('idempotency_key', 'the idempotency key must be a canonical lowercase UUID');
  return v;
}

function actor(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !isCanonicalUuid(v) || v !== v.toLowerCase()) throw invalid('actor_uuid', 'the actor must be a canonical lowercase UUID');
  return v;
}

/** The transaction UUID of an ontology write: depends only on the operation UUID, so replay finds it. */
export function ontologyTransactionUuid(operationUuid: string): string {
  return uuidV8(sha256(new Uint8Array([...encoder.encode(TRANSACTION_DOMAIN), ...parseUuid(operationUuid)])));
}

/** The canonical request digest: operation, key, the resulting ontology document's mode/format/digest and the actor. */
function requestSha256(r: Request): string {
  const body = canonicalJson({
    operation: r.operation,
    operation_uuid: r.operationUuid,
    mode: r.ontology.mode,
    source_format: r.ontology.source_format,
    canonical_ontology_sha256: r.ontology.canonical_ontology_sha256,
    actor_uuid: r.actorUuid,
  });
  return sha256Hex(encoder.encode(`${REQUEST_DOMAIN}\n${body}`));
}

function parseExtension(v: JsonValue): Extension | undefined {
  const e = v as Partial<Extension> | null;
  if (e === null || typeof e !== 'object' || e.kind !== WORKSPACE_ONTOLOGY_EXTENSION_KIND || typeof e.request_sha256 !== 'string') return undefined;
  return e as Extension;
}

function receiptOf(e: Extension): OntologyReceipt {
  return {
    operation: e.operation,
    operation_uuid: e.operation_uuid,
    mode: e.mode,
    source_format: e.source_format,
    canonical_ontology_sha256: e.canonical_ontology_sha256,
    prior_current_generation_uuid: e.prior_current_generation_uuid,
    result_generation_uuid: e.result_generation_uuid,
  };
}

function conflict(r: Request): GfError {
  return new GfError('GF_IDEMPOTENCY_CONFLICT', 'idempotency key was used for a different request', { operation: r.operation, operation_uuid: r.operationUuid }, false);
}

/**
 * What the document inspections read: one pinned generation (a lease of CURRENT, or a checkpoint view).
 *
 * Both a `Lease` and a `CheckpointView` are one, so `workspace_ontology()` of
 * CURRENT and of an opened checkpoint are the same function.
 */
export interface DocumentSource {
  readonly generationUuid: string;
  participant(familyKey: string): { readonly contentSha256: string } | undefined;
  readTable(familyKey: string): Table | undefined;
}

/** Reads a document participant of a generation as its parsed fields (undefined when the generation has none). */
function readDocument(lease: DocumentSource, family: typeof WORKSPACE_ONTOLOGY): Record<string, unknown> | undefined {
  if (lease.participant(family.key) === undefined) return undefined;
  const table = lease.readTable(family.key);
  if (table === undefined) return undefined;
  const cols = columnsOf(family, table);
  const out: Record<string, unknown> = {};
  for (const f of family.documentFields ?? []) out[f] = documentField(cols, f)?.value;
  return out;
}

/**
 * The workspace documents of a project: adopt / clear the ontology, inspect both documents.
 *
 * Writes hold the writer lock, validate before staging and publish one
 * generation whose ontology and configuration documents change together;
 * every other participant is carried forward. Replays of a key return the
 * original receipt (from the journal, or once cleanup removed it, from the
 * bounded receipt record shared with revert); a different request under the
 * same key is `GF_IDEMPOTENCY_CONFLICT`.
 */
export class WorkspaceDocuments {
  readonly #project: Project<Table>;
  readonly #writerTimeoutMs: number;
  readonly #clock: (() => number) | undefined;

  /**
   * `clock` (UTC microseconds) dates the lineage record; sampled once per
   * write, never on a resume. Default: the engine's clock at publication.
   */
  constructor(project: Project<Table>, options: { readonly writerTimeoutMs?: number; readonly clock?: () => number } = {}) {
    this.#project = project;
    this.#writerTimeoutMs = options.writerTimeoutMs ?? 0;
    this.#clock = options.clock;
  }

  /** `adopt_ontology(input, mode, idempotency_key, actor)`: parse (bounded), canonicalize, validate, publish. */
  async adoptOntology(input: AdoptInput): Promise<OntologyReceipt> {
    const operationUuid = key(input.idempotencyKey);
    const actorUuid = actor(input.actorUuid);
    if (typeof input.mode !== 'string' || !(ADOPT_MODES as readonly string[]).includes(input.mode)) throw invalid('mode', 'the mode must be advisory or strict');
    if (typeof input.sourceFormat !== 'string' || !(ONTOLOGY_SOURCE_FORMATS as readonly string[]).includes(input.sourceFormat)) {
      throw invalid('source_format', 'the source format must be yaml or json');
    }
    if (typeof input.source !== 'string') throw invalid('source', 'the ontology input must be text');
    const format = input.sourceFormat as OntologySourceFormat;
    let model: OntologyModel;
    try {
      model = canonicalOntologyModel(await parseOntologyInputInBackground(input.source, format));
    } catch (e) {
      throw isGfError(e) && e.committed === undefined ? e.withCommitted(false) : e;
    }
    const ontology = adoptedOntology(input.mode as 'advisory' | 'strict', format, model);
    return this.#write({ operation: 'adopt_ontology', operationUuid, actorUuid, ontology });
  }

  /** `clear_ontology(idempotency_key, actor)`: publishes the explicit none documents. */
  async clearOntology(input: ClearInput): Promise<OntologyReceipt> {
    const operationUuid = key(input.idempotencyKey);
    const actorUuid = actor(input.actorUuid);
    return this.#write({ operation: 'clear_ontology', operationUuid, actorUuid, ontology: NO_ONTOLOGY });
  }

  async #write(r: Request): Promise<OntologyReceipt> {
    return this.#project.withWriter((w) => this.#locked(w, r), { timeoutMs: this.#writerTimeoutMs });
  }

  #locked(w: Writer<Table>, r: Request): OntologyReceipt {
    const txn = ontologyTransactionUuid(r.operationUuid);
    const digest = requestSha256(r);
    const journal = w.readJournal(txn);
    if (journal !== undefined) {
      const ext = parseExtension(journal.extension);
      if (ext === undefined || ext.request_sha256 !== digest) throw conflict(r);
      if (journal.state === 'PUBLISHED') return this.#recorded(ext);
      // Interrupted: the same documents again, onto the same parent only.
      if ((w.current()?.generationUuid ?? null) !== ext.prior_current_generation_uuid) {
        throw new GfError('GF_TRANSACTION_FAILED', 'the workspace changed since this ontology change was interrupted; use a new idempotency key', {
          operation: r.operation,
          phase: 'resume',
          transaction_uuid: txn,
        }, false);
      }
      return this.#publish(w, r, ext);
    }
    const recorded = lookupRevertReceipt(this.#project.root, txn);
    if (recorded.kind === 'record') {
      const ext = parseExtension(recorded.extension);
      if (ext === undefined || ext.request_sha256 !== digest) throw conflict(r);
      return receiptOf(ext);
    }
    if (recorded.kind === 'pruned') throw prunedReceiptError(r.operation, r.operationUuid);
    const prior = w.current()?.generationUuid ?? null;
    const ext: Extension = {
      kind: WORKSPACE_ONTOLOGY_EXTENSION_KIND,
      operation: r.operation,
      operation_uuid: r.operationUuid,
      request_sha256: digest,
      mode: r.ontology.mode,
      source_format: r.ontology.source_format,
      canonical_ontology_sha256: r.ontology.canonical_ontology_sha256,
      actor_uuid: r.actorUuid,
      prior_current_generation_uuid: prior,
      result_generation_uuid: uuidV8(sha256(encoder.encode(`graphforge-workspace-ontology-generation/1\n${txn}`))),
      transaction_uuid: txn,
      ...(this.#clock === undefined ? {} : { published_at: this.#clock() }),
    };
    return this.#publish(w, r, ext);
  }

  #publish(w: Writer<Table>, r: Request, ext: Extension): OntologyReceipt {
    // The configuration keeps its settings and takes the new mode; both documents change together.
    let configuration: ConfigurationDocument = DEFAULT_CONFIGURATION;
    if (ext.prior_current_generation_uuid !== null) {
      const lease = w.leaseCurrent();
      try {
        const prior = readDocument(lease, WORKSPACE_CONFIGURATION);
        if (prior !== undefined) configuration = prior as unknown as ConfigurationDocument;
      } finally {
        lease.release();
      }
    }
    const nextConfiguration: ConfigurationDocument = { ...configuration, contract_version: WORKSPACE_DOCUMENT_VERSION, ontology_mode: r.ontology.mode };
    try {
      assertConfiguration(nextConfiguration);
      w.publish({
        parent: ext.prior_current_generation_uuid,
        transactionUuid: ext.transaction_uuid,
        generationUuid: ext.result_generation_uuid,
        journalExtension: { ...ext },
        lineage: { actor: ext.actor_uuid, ...(ext.published_at === undefined ? {} : { publishedAt: ext.published_at }) },
        changes: [
          { kind: 'put', capabilityId: WORKSPACE_ONTOLOGY.capabilityId, recordFamilyId: WORKSPACE_ONTOLOGY.recordFamilyId, bytes: ontologyDocumentBytes(r.ontology) },
          { kind: 'put', capabilityId: WORKSPACE_CONFIGURATION.capabilityId, recordFamilyId: WORKSPACE_CONFIGURATION.recordFamilyId, bytes: configurationDocumentBytes(nextConfiguration) },
        ],
      });
    } catch (e) {
      if (isGfError(e)) throw e.committed === undefined ? e.withCommitted(false) : e;
      throw e;
    }
    return this.#recorded(ext);
  }

  /** The receipt, after making its bounded record durable (the publication is committed: a failure says so). */
  #recorded(ext: Extension): OntologyReceipt {
    try {
      recordRevertReceipt(this.#project.root, ext.transaction_uuid, ext.result_generation_uuid, { ...ext });
    } catch (e) {
      if (isGfError(e)) throw e.withCommitted(true);
      throw e;
    }
    return receiptOf(ext);
  }

  /** `workspace_ontology()`: the CURRENT generation's ontology document (a generation without one reads as none). */
  ontology(): OntologyInfo {
    const lease = this.#project.lease();
    try {
      return ontologyInfo(lease);
    } finally {
      lease.release();
    }
  }

  /** `workspace_configuration()`: the CURRENT generation's configuration document. */
  configuration(): ConfigurationInfo {
    const lease = this.#project.lease();
    try {
      return configurationInfo(lease);
    } finally {
      lease.release();
    }
  }
}

/** The ontology document of one pinned generation (CURRENT's lease or a checkpoint view); none when it has no document. */
export function ontologyInfo(source: DocumentSource): OntologyInfo {
  const doc = (readDocument(source, WORKSPACE_ONTOLOGY) ?? { ...NO_ONTOLOGY }) as unknown as OntologyDocument;
  const model = doc.canonical_ontology;
  return {
    generation_uuid: source.generationUuid,
    mode: doc.mode,
    class_count: model?.classes.length ?? 0,
    relation_count: model?.relations.length ?? 0,
    source_format: doc.source_format,
    contract_version: doc.contract_version,
    canonical_ontology_sha256: doc.canonical_ontology_sha256,
    document_sha256: source.participant(WORKSPACE_ONTOLOGY.key)?.contentSha256 ?? null,
    canonical_ontology: model === null ? null : canonicalJson(model),
  };
}

/** The configuration document of one pinned generation (CURRENT's lease or a checkpoint view). */
export function configurationInfo(source: DocumentSource): ConfigurationInfo {
  const doc = (readDocument(source, WORKSPACE_CONFIGURATION) ?? { ...DEFAULT_CONFIGURATION }) as unknown as ConfigurationDocument;
  return {
    generation_uuid: source.generationUuid,
    ontology_mode: doc.ontology_mode,
    capability_configuration: canonicalJson(doc.capability_configuration),
    embedding_configuration: canonicalJson(doc.embedding_configuration),
    contract_version: doc.contract_version,
    document_sha256: source.participant(WORKSPACE_CONFIGURATION.key)?.contentSha256 ?? null,
  };
}
