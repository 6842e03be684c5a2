// The demo's agent threads: a literature-review pipeline run by a
// real compiled LangGraph StateGraph through the SQLite checkpointer adapter.
// Deterministic nodes, no model calls. LangGraph's checkpoint ids are
// time-based, so the file is not byte-identical across runs.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SqliteCheckpointerAdapter } from '../langgraph/sqlite-checkpointer';
import { restoreThread } from '../langgraph/thread-restore';

import { DEMO_LANGGRAPH_FILE } from '../contract/threads';

export { DEMO_LANGGRAPH_FILE } from '../contract/threads';

/** What {@link writeLangGraphDemo} wrote. */
export interface LangGraphDemoResult {
  /** The database file, or null when one already existed beside the workspace (it is never replaced). */
  readonly path: string | null;
  readonly threads: number;
}

const TOPICS = [
  'sleep and memory consolidation',
  'microplastics in river sediment',
  'soil carbon under no-till farming',
  'urban heat islands and tree cover',
  'antibiotic resistance in wastewater',
  'coral bleaching recovery rates',
  'battery recycling yields',
  'remote work and productivity',
  'pollinator decline and pesticides',
  'air quality and school attendance',
  'language models in peer review',
  'glacier melt and sea level',
] as const;

/** A small deterministic hash of text (FNV-1a), for stable demo facts. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

interface Source {
  readonly id: string;
  readonly title: string;
  readonly year: number;
}

interface Finding {
  readonly source: string;
  readonly claim: string;
  readonly confidence: number;
}

/** Builds the compiled pipeline on `checkpointer` (LangGraph loaded on first use, never for `gf --help`). */
async function buildPipeline(checkpointer: Awaited<ReturnType<SqliteCheckpointerAdapter['saver']>>, failFetchOnce: Set<string>) {
  const { Annotation, END, START, StateGraph, interrupt } = await import('@langchain/langgraph');
  const State = Annotation.Root({
    topic: Annotation<string>({ reducer: (_a, b) => b, default: () => '' }),
    steps: Annotation<string[]>({ reducer: (_a, b) => b, default: () => [] }),
    sources: Annotation<Source[]>({ reducer: (_a, b) => b, default: () => [] }),
    findings: Annotation<Finding[]>({ reducer: (_a, b) => b, default: () => [] }),
    decision: Annotation<string>({ reducer: (_a, b) => b, default: () => 'pending' }),
    published: Annotation<boolean>({ reducer: (_a, b) => b, default: () => false }),
    log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  return new StateGraph(State)
    .addNode('plan', (s) => ({ steps: [`search: ${s.topic}`, 'screen abstracts', 'extract findings', 'review'], log: ['planned'] }))
    .addNode('fetch', (s) => {
      if (failFetchOnce.delete(s.topic)) throw new Error('demo: the library search timed out (retry succeeds)');
      const h = fnv(s.topic);
      const sources = Array.from({ length: 3 + (h % 3) }, (_, i) => ({ id: `src-${((h >>> (i * 3)) % 9000) + 1000}`, title: `${s.topic} — study ${i + 1}`, year: 2015 + ((h >>> i) % 10) }));
      return { sources, log: [`fetched ${sources.length} sources`] };
    })
    .addNode('extract', (s) => ({
      findings: s.sources.map((src) => ({ source: src.id, claim: `${src.title} supports the hypothesis`, confidence: Math.round((0.5 + ((fnv(src.id) % 50) / 100)) * 100) / 100 })),
      log: ['extracted findings'],
    }))
    .addNode('review', (s) => {
      const answer = interrupt({ question: 'Approve this literature review for publication?', findings: s.findings.length }) as string;
      return { decision: answer, log: [`review: ${answer}`] };
    })
    .addNode('publish', (s) => ({ published: s.decision === 'approve', log: [s.decision === 'approve' ? 'published' : 'not published'] }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'fetch')
    .addEdge('fetch', 'extract')
    .addEdge('extract', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}

/**
 * Writes the demo's LangGraph threads to `langgraph.sqlite` beside `workspaceDir`.
 *
 * Twelve threads: seven approved and published, one rejected, two waiting
 * at the review interrupt, one whose fetch failed and was retried, and one
 * published thread restored (through the `threads.restore` engine) to its
 * review checkpoint. An existing file is left as it is. The file is built
 * under a temporary name and renamed into place.
 */
export async function writeLangGraphDemo(workspaceDir: string): Promise<LangGraphDemoResult> {
  const path = join(dirname(resolve(workspaceDir)), DEMO_LANGGRAPH_FILE);
  if (existsSync(path)) return { path: null, threads: 0 };
  const tmp = `${path}.${process.pid}.tmp`;
  const adapter = new SqliteCheckpointerAdapter({ path: tmp });
  const { Command } = await import('@langchain/langgraph');
  try {
    const saver = await adapter.saver();
    const failing = new Set<string>([TOPICS[10]]);
    const graph = await buildPipeline(saver, failing);
    const config = (i: number) => ({ configurable: { thread_id: `review-${String(i + 1).padStart(2, '0')}` } });
    for (const [i, topic] of TOPICS.entries()) {
      if (i === 10) {
        await graph.invoke({ topic }, config(i)).catch(() => undefined); // fails in fetch: the checkpoint before it stays
        await graph.invoke(null, config(i)); // the retry runs on to the review
      } else {
        await graph.invoke({ topic }, config(i));
      }
      if (i === 8 || i === 9) continue; // waiting for approval
      await graph.invoke(new Command({ resume: i === 7 ? 'reject' : 'approve' }), config(i));
    }
    // review-12 was published, then restored to its review checkpoint with a reason.
    let review: string | undefined;
    for await (const s of graph.getStateHistory(config(11))) if (s.next.includes('review') && review === undefined) review = s.config.configurable?.['checkpoint_id'] as string;
    if (review === undefined) throw new Error('invariant violated: the demo thread has no review checkpoint');
    await restoreThread(saver, { threadId: 'review-12', checkpointId: review, reason: 'published before the second reviewer signed off', actor: 'demo', idempotencyKey: '018f0f4e-7b8c-7000-8000-00000000de12' });
    await adapter.close();
    renameSync(tmp, path);
    return { path, threads: TOPICS.length };
  } finally {
    await adapter.close();
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  }
}
