export {
  DIFF_API_VERSION,
  DIFF_METHOD,
  DIFF_SCOPES,
  DIFF_DETAILS,
  SUMMARY_CHANGE_KINDS,
  RECORD_CHANGE_KINDS,
  DIFF_PAGE_LIMITS,
  CURRENT_SELECTOR,
  CURRENT_ENDPOINT_DOMAIN,
  DIFF_ADAPTER_CONTRACT,
  SUMMARY_DIFF_SCHEMA_NAME,
  RECORD_DIFF_SCHEMA_NAME,
  SUMMARY_DIFF_SCHEMA,
  RECORD_DIFF_SCHEMA,
  SUMMARY_DIFF_SORT,
  RECORD_DIFF_SORT,
} from './arrow-schemas';
export type { DiffScope, DiffDetail, SummaryChangeKind, RecordChangeKind } from './arrow-schemas';
export { currentEndpointUuid } from './plan/endpoint';
export type { DiffEndpoint, LeasedEndpoint, EndpointParticipant } from './plan/endpoint';
export { DIFF_ADAPTERS, ADAPTER_REFUSALS, adapterOfFamily, adaptersFor, resolveAdapter } from './plan/adapters';
export type { DiffAdapter, AdapterRefusal } from './plan/adapters';
export { CANCEL_CHECK_INTERVAL, DIFF_PROGRESS_CHANNEL, checkCancelled, runAsync, runSync } from './steps';
export type { DiffEffect, DiffSteps } from './steps';
export { validateDiffParams, scopeSelects } from './plan/request';
export { summaryRows } from './plan/families';
export { orderedChanges } from './changes/ordered-changes';
export { pageState, diffEndpoints, diffEndpointsAsync, diffAllRecords, diffAllRecordsAsync } from './page/diff-page';
export type { DiffParams, DiffView } from './plan/request';
export type { DiffEngineOptions, DiffPage, DiffBinding, AllRecordsOptions } from './page/diff-page';
export type { OrderedChangesOptions } from './changes/ordered-changes';
export {
  PAGE_TOKEN_MAX_CHARS,
  TOKEN_SECRET_BYTES,
  selectorsDigest,
  encodePageToken,
  decodePageToken,
  checkTokenRequest,
  checkTokenEndpoints,
  snapshotGone,
} from './page/page-token';
export type { TokenEndpoint, TokenState, PagePosition, SummaryPosition, RecordPosition, TokenRequest } from './page/page-token';
export { compareRecordKeys, compareFamilyKey } from './changes/change-key';
export { FamilyDiff, MERGE_RUN_ROWS } from './merge/family-diff';
export type { RecordChange, RecordSortKey } from './changes/change-key';
export type { FamilyPair } from './merge/family-diff';
export { RowFingerprinter, rowFingerprinter } from '../canonical/row-fingerprints';
export type { RowHasher } from '../canonical/row-fingerprints';
export { ChangeList, KIND_ADDED, KIND_MODIFIED, KIND_REMOVED, changeColumns } from './changes/change-list';
export type { ChangeRange } from './changes/change-list';
export { summaryTable, recordTable } from './page/result-tables';
export type { SummaryRow } from './page/result-tables';
export { diffCheckpoints, diffStatCheckpoints, parseSelector } from './shell';
export type { DiffSelector, EndpointResolver, DiffCheckpointsRequest, DiffShellOptions, DiffStatRequest } from './shell';
export { loadTokenSecret, TOKEN_SECRET_PATH } from './page/token-secret';
export { recordChangeBetween, recordChangeOf } from './page/record-inspector';
export type { RecordChangeRequest, RecordChangeResult, RecordChangeKindOrUnchanged, RecordLookup } from './page/record-inspector';
export { checkpointsResolver, diffProjectCheckpoints, diffProjectAllRecords, diffProjectStat, recordChange } from './project-diff';
export { displayPage, displayPageAsync, diffStat, diffStatAsync } from './page/display-page';
export type { DiffStatOptions } from './page/display-page';
export { DisplayResolver, cellText, changedFieldsOf } from './page/record-display';
export type { RecordDisplay } from './page/record-display';
export { CHANGE_CACHE_DIR, CHANGE_CACHE_FORMAT, CHANGE_PREFIX_CACHE_FORMAT, DiskChangeCache, changeCacheKey, changeListFromTable, changesTable } from './changes/change-cache';
export type { ChangeCache } from './changes/change-cache';
export { DEFAULT_DIFF_TUNING, diffTuning } from './tuning';
export type { DiffTuning } from './tuning';
