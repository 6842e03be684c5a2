import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import type { Pool } from 'pg';
import { loadsPythonTyped, PYTHON_SERIALIZER, PythonDecodeError, unreadableValue } from './python-serde';

/** A stored value through the Python decoder; one that does not decode is an `unreadable` marker in its place. */
export function loadPythonValue(type: string, bytes: Uint8Array | string | null): unknown {
  try {
    return loadsPythonTyped(type, bytes);
  } catch (e) {
    return e instanceof PythonDecodeError ? unreadableValue(e.problem, e.detail) : unreadableValue('undecodable', 'the value does not decode');
  }
}

/**
 * Upstream's `PostgresSaver` reading a database Python's `PostgresSaver` wrote.
 *
 * The tables and queries are the same; three loads differ, as Python's own
 * saver does them (langgraph-checkpoint-postgres `_load_checkpoint`,
 * `_load_blobs`, `_load_writes`): blobs and writes go through the Python
 * decoder (a value that does not decode becomes an `unreadable` marker, so
 * the checkpoint stays readable), the checkpoint document's own
 * `channel_values` (Python keeps strings, numbers, booleans and None inline)
 * are merged under the blobs, and metadata is the stored JSON as it is.
 * It is only ever used on a read-only pool.
 */
export function pythonPostgresSaver(Saver: typeof PostgresSaver, pool: Pool): PostgresSaver {
  class PythonPostgresSaver extends Saver {
    protected override async _loadCheckpoint(checkpoint: Omit<Checkpoint, 'pending_sends' | 'channel_values'>, channelValues: [Uint8Array, Uint8Array, Uint8Array][]): Promise<Checkpoint> {
      const inline = (checkpoint as { channel_values?: unknown }).channel_values;
      const blobs = await this._loadBlobs(channelValues);
      return {
        ...checkpoint,
        channel_versions: checkpoint.channel_versions ?? {},
        versions_seen: checkpoint.versions_seen ?? {},
        channel_values: { ...(inline !== null && typeof inline === 'object' && !Array.isArray(inline) ? (inline as Record<string, unknown>) : {}), ...blobs },
      } as Checkpoint;
    }

    protected override async _loadBlobs(blobValues: [Uint8Array, Uint8Array, Uint8Array][]): Promise<Record<string, unknown>> {
      const d = new TextDecoder();
      const out: Record<string, unknown> = {};
      for (const [k, t, v] of blobValues ?? []) {
        const type = d.decode(t);
        if (type !== 'empty') out[d.decode(k)] = loadPythonValue(type, v);
      }
      return out;
    }

    protected override async _loadMetadata(metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
      return metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : {};
    }

    protected override async _loadWrites(writes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array][]): Promise<[string, string, unknown][]> {
      const d = new TextDecoder();
      return (writes ?? []).map(([tid, channel, t, v]) => [d.decode(tid), d.decode(channel), loadPythonValue(d.decode(t), v)]);
    }
  }
  return new PythonPostgresSaver(pool, PYTHON_SERIALIZER);
}
