// The diff engine as the rest of the app uses it: the entry shell (parsed
// requests in, pinned endpoints, pages out). Stage modules are imported by path.
export { diffAllRecordsCheckpoints, diffCheckpoints, diffStatCheckpoints, heldResolver, projectShell, recordChange } from './shell';
export { selectorOf, withPinnedPair } from './plan-pinned-pair';
export type { DiffPage } from './page-diff';
export { diffCachesOf } from './diff-caches';
export type { DiffCaches } from './diff-caches';
