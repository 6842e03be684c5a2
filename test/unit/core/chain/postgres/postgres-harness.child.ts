// Child process of the harness test: starts a server, reports it, then waits to be killed.
import { startPostgres } from '../../../../support/postgres';

const server = await startPostgres();
process.stdout.write(`${JSON.stringify({ pid: server.pid, url: server.url })}\n`);
setInterval(() => undefined, 60_000);
