export { createDemoWorkspace, DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED, DEMO_MAX_RECORDS, DEMO_MIN_RECORDS } from './create';
export type { DemoOptions, DemoResult } from './create';
export { DEMO_CHAIN_DIR, writeDemoChain } from './ledgers';
export { DEMO_STEPS } from './steps';
export type { DemoContext, DemoState, DemoStep } from './steps';
export { DEMO_EPOCH_US, demoClock, demoUuid, rngFor } from './rng';
export type { DemoClock, Rng } from './rng';
export { participantFromColumns, putColumns, removeFamily } from './tables';
export type { ColumnValues } from './tables';
