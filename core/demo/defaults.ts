// The demo's bounds and defaults: declared once in the contract (core/contract/demo.ts).
export { DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED, DEMO_MAX_RECORDS, DEMO_MIN_RECORDS } from '../contract/demo';
