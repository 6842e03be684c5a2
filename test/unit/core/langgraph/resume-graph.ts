/**
 * The deterministic LangGraph workflow of the cross-process resume tests.
 *
 * plan → review (interrupts for an approval) → apply. No model calls: every
 * node is a pure function of the state, so an interrupted-and-resumed run
 * must end exactly where an uninterrupted one does.
 */
import { Annotation, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';

const ResumeState = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  total: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
  approval: Annotation<string>({ reducer: (_a, b) => b, default: () => '' }),
});

/** What the interrupted run starts from. */
export const RESUME_INPUT = { total: 2 };
/** The answer the resumed run gives to the interrupt. */
export const RESUME_ANSWER = 'approved by operator';

/** The compiled graph on `checkpointer`. */
export function buildResumeGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(ResumeState)
    .addNode('plan', (s) => ({ steps: ['plan'], total: s.total + 3 }))
    .addNode('review', (s) => {
      const answer = interrupt({ question: 'apply the plan?', total: s.total }) as string;
      return { steps: ['review'], approval: answer };
    })
    .addNode('apply', (s) => ({ steps: ['apply'], total: s.total * 7 }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'review')
    .addEdge('review', 'apply')
    .addEdge('apply', END)
    .compile({ checkpointer });
}

/** The config of one thread. */
export const threadConfig = (threadId: string): RunnableConfig => ({ configurable: { thread_id: threadId } });

/** A checkpoint tuple and the thread's state values as the saver's serializer writes them (base64). */
export async function serializedThread(saver: BaseCheckpointSaver, threadId: string): Promise<{ readonly checkpoint: string; readonly values: string; readonly next: readonly string[] }> {
  const graph = buildResumeGraph(saver);
  const state = await graph.getState(threadConfig(threadId));
  const tuple = await saver.getTuple(threadConfig(threadId));
  if (tuple === undefined) throw new Error(`no checkpoint for thread ${threadId}`);
  const [, checkpointBytes] = await saver.serde.dumpsTyped({ checkpoint: tuple.checkpoint, metadata: tuple.metadata, pendingWrites: tuple.pendingWrites ?? [] });
  const [, valueBytes] = await saver.serde.dumpsTyped(state.values);
  return { checkpoint: Buffer.from(checkpointBytes).toString('base64'), values: Buffer.from(valueBytes).toString('base64'), next: state.next };
}
