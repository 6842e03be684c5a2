// Process A of the cross-process resume test. Usage:
//   GF_TEST_LG_TARGET=<postgres url | sqlite path> node --import tsx resume-a.child.ts <postgres|sqlite> <thread id>
// Runs the graph until its interrupt, prints the serialized thread as one JSON line,
// then waits to be killed (the parent sends SIGKILL, like a worker dying mid-workflow).
import pg from 'pg';
import { PostgresCheckpointerAdapter, SqliteCheckpointerAdapter, type LangGraphCheckpointerPort } from '../../../../core/langgraph';
import { buildResumeGraph, RESUME_INPUT, serializedThread, threadConfig } from './resume-graph';

const [kind, threadId] = process.argv.slice(2) as [string, string];
const target = process.env.GF_TEST_LG_TARGET ?? '';
const adapter: LangGraphCheckpointerPort = kind === 'postgres' ? new PostgresCheckpointerAdapter({ pool: new pg.Pool({ connectionString: target, max: 2 }) }) : new SqliteCheckpointerAdapter({ path: target });
const saver = await adapter.saver();
const result = await buildResumeGraph(saver).invoke(RESUME_INPUT, threadConfig(threadId));
process.stdout.write(`${JSON.stringify({ interrupted: '__interrupt__' in result, thread: await serializedThread(saver, threadId) })}\n`);
setInterval(() => undefined, 1 << 30); // alive until killed
