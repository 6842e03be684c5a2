// Port operation `saver()`: one upstream saver, set up once, writes and errors untouched.
import { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { putChain, sampleCheckpoint } from '../langgraph-support';
import { check, type PortCase } from './types';

const badPut = (saver: BaseCheckpointSaver): Promise<unknown> => saver.put({}, sampleCheckpoint(0), { source: 'loop', step: 0, parents: {} }, {}).then(() => undefined, (e: unknown) => e);

export const SAVER_CASES: readonly PortCase[] = [
  {
    id: 'saver.same_object',
    title: 'saver() returns one BaseCheckpointSaver, the same object on every call, also under 10 concurrent first calls',
    async run({ init }) {
      const { adapter } = await init.create();
      const first = await Promise.all(Array.from({ length: 10 }, () => adapter.saver()));
      check(new Set(first).size === 1, 'saver.same_object', `${new Set(first).size} distinct savers from 10 concurrent first calls`);
      check(first[0] instanceof BaseCheckpointSaver, 'saver.same_object', 'the saver is not a BaseCheckpointSaver');
      check((await adapter.saver()) === first[0], 'saver.same_object', 'a later call returned another object');
    },
  },
  {
    id: 'saver.round_trip',
    title: 'a checkpoint written through one adapter reads back identically through a fresh adapter on the same database',
    async run({ init, freshThread }) {
      const writer = await init.create();
      const thread = freshThread('round-trip');
      const config = await putChain(await writer.adapter.saver(), thread, 3);
      const written = await (await writer.adapter.saver()).getTuple(config);
      const reader = await init.create();
      const read = await (await reader.adapter.saver()).getTuple(config);
      check(read !== undefined && JSON.stringify(read.checkpoint) === JSON.stringify(written?.checkpoint), 'saver.round_trip', 'the fresh adapter read another checkpoint');
      check(JSON.stringify(read.metadata) === JSON.stringify(written?.metadata), 'saver.round_trip', 'the fresh adapter read other metadata');
    },
  },
  {
    id: 'saver.errors_unwrapped',
    title: "a rejected write reaches the caller as upstream's own error: same class, same message, no wrapper",
    async run({ init }) {
      const { adapter } = await init.create();
      const mine = (await badPut(await adapter.saver())) as Error | undefined;
      const theirs = (await badPut(await init.bare())) as Error | undefined;
      check(mine instanceof Error && theirs instanceof Error, 'saver.errors_unwrapped', 'a write without configurable did not reject');
      check(mine.constructor === theirs.constructor, 'saver.errors_unwrapped', `class ${mine.constructor.name}, upstream ${theirs.constructor.name}`);
      check(mine.message === theirs.message, 'saver.errors_unwrapped', `message "${mine.message}", upstream "${theirs.message}"`);
      check(mine.cause === undefined, 'saver.errors_unwrapped', 'the error wraps a cause');
    },
  },
];
