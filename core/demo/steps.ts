import type { Table } from 'apache-arrow';
import {
  CAPABILITY_DECLARATION,
  EPISTEMIC_HYPOTHESIS,
  EPISTEMIC_SUPERSESSION,
  KNOWLEDGE_CONFIDENCE_ASSESSMENT,
  PROVENANCE_EVENT,
  REGISTERED_CAPABILITIES,
  WORKSPACE_CONFIGURATION,
  configurationDocumentBytes,
} from '../participants/index';
import { WorkspaceDocuments } from '../workspace/index';
import type { ParticipantChange, Project, PublishResult } from '../project/index';
import { demoUuid } from './rng';
import type { DemoClock, Rng } from './rng';
import { putColumns, removeFamily } from './tables';
import { NodeStore, capitalized } from './graph-store';
import { AssertionStore } from './knowledge-store';
import { lineageChange } from './provenance-lineage';

/** Mutable script state shared by the steps (what earlier steps created). */
export interface DemoState {
  /** The graph's nodes, compact (UUID bytes, class, derived labels). */
  readonly nodes: NodeStore;
  events: string[];
  /** Every assertion (creation order), compact. */
  readonly assertions: AssertionStore;
  hypotheses: { uuid: string[]; status: string[]; statement: string[]; from: bigint[]; recorded: bigint[] };
  supersessions: [string, string, bigint][];
  ontologyStrict: boolean;
}

/**
 * What a step sees: the project, the size, deterministic randomness and time.
 *
 * `publish` derives the transaction UUID from the seed and the step id, so
 * a step's generation is the same on every run with the same seed.
 */
export interface DemoContext {
  readonly project: Project<Table>;
  readonly seed: number;
  /** Target number of graph records (nodes + edges). */
  readonly records: number;
  readonly clock: DemoClock;
  /** This step's own PRNG (keyed by seed and step id). */
  readonly rng: Rng;
  readonly state: DemoState;
  /** A UUID derived from the seed and a label. */
  uuid(label: string): string;
  /** Publishes one generation on top of CURRENT through the public API. */
  publish(changes: readonly ParticipantChange[]): Promise<PublishResult>;
  /**
   * A fresh path for one streamed participant file (graph nodes and edges), removed once the publication that puts it is done.
   *
   * Why: the largest participants go to the store as `put-file`, never whole in memory.
   */
  partFile(name: string): string;
  /** Records a generation a step published through another public API (a revert) in the demo's history. */
  recordGeneration(g: { readonly generationUuid: string; readonly manifestSha256: string }): void;
}

/**
 * One scripted step of the demo history.
 *
 * Later modules append their own steps (named checkpoints, ledgers, a
 * revert) through `createDemoWorkspace`'s `extraSteps`; ids are stable and
 * key the step's randomness and transaction UUID.
 */
export interface DemoStep {
  readonly id: string;
  readonly description: string;
  run(ctx: DemoContext): Promise<void>;
}

const CLASSES = ['paper', 'author', 'concept', 'dataset'] as const;
const RELATIONS = [
  ['cites', 'paper', 'paper'],
  ['authored_by', 'paper', 'author'],
  ['mentions', 'paper', 'concept'],
  ['uses', 'paper', 'dataset'],
] as const;

/**
 * Adopts the demo ontology through `adopt_ontology` (ADR-0014: the only persistent ontology mutation), as a user would.
 *
 * One generation (the configuration keeps its settings and takes the mode);
 * the key and the lineage time come from the script, so the demo stays a
 * pure function of (records, seed).
 */
async function adoptDemoOntology(ctx: DemoContext, extra: boolean, mode: 'advisory' | 'strict'): Promise<void> {
  const classes: string[] = [...CLASSES, ...(extra ? ['software'] : [])];
  const relations: (readonly [string, string, string])[] = [...RELATIONS, ...(extra ? [['implements', 'software', 'concept'] as const] : [])];
  const source = [
    'classes:',
    ...classes.map((id) => `  - {id: ${id}, label: ${cap(id)}}`),
    'relations:',
    ...relations.map((r) => `  - {id: ${r[0]}, label: ${cap(r[0].replace('_', ' '))}, domain_class_id: ${r[1]}, range_class_id: ${r[2]}}`),
    '',
  ].join('\n');
  const docs = new WorkspaceDocuments(ctx.project, { clock: () => Number(ctx.clock.now()) });
  const receipt = await docs.adoptOntology({ source, sourceFormat: 'yaml', mode, idempotencyKey: ctx.uuid(`adopt-ontology/${mode}`), actorUuid: demoUuid(ctx.seed, 'actor/curator') });
  const current = ctx.project.current();
  if (current === null || current.generationUuid !== receipt.result_generation_uuid) throw new Error('invariant violated: demo ontology adoption');
  ctx.recordGeneration({ generationUuid: current.generationUuid, manifestSha256: current.manifestSha256 });
}

const cap = capitalized;

/** The demo configuration (workspace_configuration@1): the ontology mode and a few recognized settings. */
function configDocument(mode: 'advisory'): ParticipantChange {
  const bytes = configurationDocumentBytes({
    contract_version: 1,
    ontology_mode: mode,
    capability_configuration: { knowledge: { min_confidence_percent: 50 } },
    embedding_configuration: { dimensions: 384, distance: 'cosine', model_id: 'all-minilm-l6-v2' },
  });
  return { kind: 'put', capabilityId: WORKSPACE_CONFIGURATION.capabilityId, recordFamilyId: WORKSPACE_CONFIGURATION.recordFamilyId, bytes };
}

function nodeCount(records: number): number {
  return Math.max(3, Math.round(records * 0.4));
}

function addNodes(ctx: DemoContext, count: number, classes: readonly (typeof CLASSES)[number][] | readonly ['software']): void {
  ctx.state.nodes.add(ctx.rng, count, classes, ctx.clock.now());
}

function nodeChange(ctx: DemoContext): ParticipantChange {
  return ctx.state.nodes.nodeChange(ctx.partFile('graph-node.arrow'));
}

/** Edges: node i links to node (i + k) mod N for k = 1, 2, …: unique identities, endpoints always exist. */
function edgeChange(ctx: DemoContext, count: number): ParticipantChange {
  return ctx.state.nodes.edgeChange(ctx.rng, count, ctx.clock.now(), ctx.partFile('graph-edge.arrow'));
}

function edgeCount(ctx: DemoContext): number {
  const n = ctx.state.nodes.length;
  return Math.min(Math.max(2, ctx.records - nodeCount(ctx.records)), n * Math.max(1, n - 1));
}

/** Draws `count` new assertions, then the assertion participant and every assertion's evidence link (fresh digests), streamed. */
function assertionChange(ctx: DemoContext, count: number, events: readonly string[]): ParticipantChange[] {
  const nodes = ctx.state.nodes;
  const a = ctx.state.assertions;
  const t = ctx.clock.now();
  a.add(ctx.rng, count, nodes, events.length, t);
  return [a.assertionChange(nodes, events, ctx.partFile('knowledge-assertion.arrow')), a.evidenceChange(ctx.rng, t, ctx.partFile('knowledge-evidence-link.arrow'))];
}

function hypothesisChange(ctx: DemoContext): ParticipantChange[] {
  const h = ctx.state.hypotheses;
  const s = ctx.state.supersessions;
  return [
    putColumns(EPISTEMIC_HYPOTHESIS, { hypothesis_uuid: h.uuid, statement: h.statement, status: h.status, valid_from: h.from, valid_to: h.uuid.map(() => null), recorded_at: h.recorded }),
    putColumns(EPISTEMIC_SUPERSESSION, { superseded_hypothesis_uuid: s.map((x) => x[0]), superseding_hypothesis_uuid: s.map((x) => x[1]), recorded_at: s.map((x) => x[2]) }),
  ];
}

/** The built-in history: imports, edits, a removed family and a schema-compatible ontology change. */
export const DEMO_STEPS: readonly DemoStep[] = [
  {
    id: 'import-ontology',
    description: 'Import the ontology, configuration and capability declarations',
    async run(ctx) {
      await adoptDemoOntology(ctx, false, 'advisory');
      await ctx.publish([
        configDocument('advisory'),
        putColumns(CAPABILITY_DECLARATION, {
          capability_id: REGISTERED_CAPABILITIES.map((c) => c.capabilityId),
          capability_version: REGISTERED_CAPABILITIES.map((c) => c.capabilityVersion),
          enabled: REGISTERED_CAPABILITIES.map(() => true),
          declared_at: REGISTERED_CAPABILITIES.map(() => ctx.clock.now()),
        }),
      ]);
    },
  },
  {
    id: 'import-graph',
    description: 'Import the research graph (papers, authors, concepts, datasets and their links)',
    async run(ctx) {
      // Room for the curation's and revision's nodes too (about 5 % more, and three), so the store never copies itself.
      ctx.state.nodes.reserve(Math.ceil(nodeCount(ctx.records) * 1.06) + 16);
      addNodes(ctx, nodeCount(ctx.records), CLASSES);
      await ctx.publish([nodeChange(ctx), edgeChange(ctx, edgeCount(ctx))]);
    },
  },
  {
    id: 'import-provenance',
    description: 'Record the import and extraction activities and their lineage',
    async run(ctx) {
      const count = Math.max(4, Math.round(ctx.records / 200));
      const t = ctx.clock.now();
      const ev = Array.from({ length: count }, () => ctx.rng.uuid());
      ctx.state.events = ev;
      await ctx.publish([
        putColumns(PROVENANCE_EVENT, {
          event_uuid: ev,
          activity: ev.map((_, i) => (['import', 'extract', 'curate', 'merge', 'infer'] as const)[i % 5] as string),
          agent: ev.map((_, i) => (i % 3 === 0 ? null : `agent-${i % 7}`)),
          started_at: ev.map((_, i) => t + BigInt(i) * 1_000_000n),
          ended_at: ev.map((_, i) => (i % 4 === 0 ? null : t + BigInt(i) * 1_000_000n + 500_000n)),
        }),
        lineageChange(ctx.state.nodes, ev, ctx.partFile('provenance-lineage.arrow')),
      ]);
    },
  },
  {
    id: 'import-knowledge',
    description: 'Import assertions with evidence and confidence assessments',
    async run(ctx) {
      const changes = assertionChange(ctx, Math.max(8, Math.round(ctx.records / 20)), ctx.state.events);
      changes.push(ctx.state.assertions.confidenceChange(ctx.rng, ctx.clock.now(), ctx.partFile('knowledge-confidence.arrow')));
      await ctx.publish(changes);
    },
  },
  {
    id: 'import-epistemic',
    description: 'Record research hypotheses',
    async run(ctx) {
      const count = Math.max(4, Math.round(ctx.records / 400));
      const h = ctx.state.hypotheses;
      const t = ctx.clock.now();
      for (let i = 0; i < count; i++) {
        h.uuid.push(ctx.rng.uuid());
        h.statement.push(`Hypothesis ${i}: concept ${i % 17} explains result ${i % 11}`);
        h.status.push(i % 3 === 0 ? 'supported' : 'proposed');
        h.from.push(t);
        h.recorded.push(t + BigInt(i));
      }
      await ctx.publish(hypothesisChange(ctx));
    },
  },
  {
    id: 'curate-graph',
    description: 'Curate the graph: relabel some nodes, add new ones, relink',
    async run(ctx) {
      const n = ctx.state.nodes;
      const t = ctx.clock.now();
      const edits = Math.max(1, Math.round(n.length / 100));
      for (let i = 0; i < edits; i++) n.curate(ctx.rng.int(n.length), t);
      addNodes(ctx, Math.max(1, Math.round(n.length / 20)), CLASSES);
      await ctx.publish([nodeChange(ctx), edgeChange(ctx, edgeCount(ctx) + Math.round(n.length / 20))]);
    },
  },
  {
    id: 'retire-confidence',
    description: 'Retire the confidence assessments (a removed record family)',
    async run(ctx) {
      await ctx.publish([removeFamily(KNOWLEDGE_CONFIDENCE_ASSESSMENT)]);
    },
  },
  {
    id: 'strict-ontology',
    description: 'Schema-compatible ontology change: add a class and a relation, then enforce the ontology strictly',
    async run(ctx) {
      ctx.state.ontologyStrict = true;
      await adoptDemoOntology(ctx, true, 'strict');
    },
  },
  {
    id: 'revise-knowledge',
    description: 'Add software nodes and assertions; supersede a hypothesis',
    async run(ctx) {
      addNodes(ctx, 3, ['software']);
      const changes = assertionChange(ctx, Math.max(4, Math.round(ctx.records / 200)), ctx.state.events);
      const h = ctx.state.hypotheses;
      const t = ctx.clock.now();
      const successor = ctx.uuid('hypothesis/successor');
      h.uuid.push(successor);
      h.statement.push('Refined hypothesis: concept 0 explains result 0 under curation');
      h.status.push('proposed');
      h.from.push(t);
      h.recorded.push(t);
      h.status[0] = 'superseded';
      ctx.state.supersessions.push([h.uuid[0] as string, successor, t]);
      await ctx.publish([nodeChange(ctx), ...changes, ...hypothesisChange(ctx)]);
    },
  },
];
