import type { BaseCheckpointSaver, Checkpoint } from '@langchain/langgraph-checkpoint';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';

/** A checkpoint with one channel value, as LangGraph's loop would write it (step `step`). */
export function sampleCheckpoint(step: number): Checkpoint {
  return {
    v: 4,
    id: uuid6(step),
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, step)).toISOString(),
    channel_values: { notes: `step ${step}` },
    channel_versions: { notes: step + 1 },
    versions_seen: {},
  };
}

/**
 * Writes `count` checkpoints on `threadId` through `saver`, each the child of the one before.
 *
 * Returns the config of the last checkpoint.
 */
export async function putChain(saver: BaseCheckpointSaver, threadId: string, count: number): Promise<RunnableConfig> {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
  for (let step = 0; step < count; step++) {
    config = await saver.put(config, sampleCheckpoint(step), { source: 'loop', step, parents: {} }, { notes: step + 1 });
  }
  return config;
}
