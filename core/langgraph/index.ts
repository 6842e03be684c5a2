// LangGraph checkpointers (story S5-01). Importing this module loads no
// checkpoint package and no database driver: the adapters load them on first use.
export type { CheckpointerHealth, LangGraphCheckpointerPort } from './port';
export { CHECKPOINTER_HEALTH_FIELDS, checkpointerHealth } from './port';
export { PostgresCheckpointerAdapter, type PostgresCheckpointerAdapterOptions } from './postgres-checkpointer';
export { SqliteCheckpointerAdapter, type SqliteCheckpointerAdapterOptions } from './sqlite-checkpointer';
export { openCheckpointerPool, type CheckpointerPoolOptions } from './postgres-pool';
