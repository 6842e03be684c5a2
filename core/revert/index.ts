export {
  REVERT_REQUEST_DOMAIN,
  REVERT_TRANSACTION_DOMAIN,
  RESTORATION_UUID_DOMAIN,
  RESTORED_GENERATION_DOMAIN,
  revertRequestPreimage,
  revertRequestSha256,
  revertTransactionUuid,
  restorationUuid,
  restoredGenerationUuid,
  revertIdentity,
  validateReason,
  prepareRevert,
} from '../checkpoints/revert-identity';
export type { RevertRequestIdentityInput, RevertIdentity, RestoredGenerationInput, RevertInput, RevertRequest } from '../checkpoints/revert-identity';
export { REVERT_EXTENSION_KIND, parseExtension } from './extension';
export type { RevertExtension } from './extension';
export { VALIDATION_MEMO_MAX_ENTRIES, ValidationMemo, projectValidationMemo, validateCompleteSnapshot, completeValidationCatalog } from '../checkpoints/snapshot-validation';
export {
  REVERT_OPERATION,
  RESTORATION_CONTRACT_VERSION,
  RevertEngine,
  revertToCheckpoint,
  previewRevert,
  restorationRowOf,
  revertReceiptOf,
  restorationChanges,
} from './revert';
export type { RevertOptions, RestorationRow, RevertPreview, PreviewOptions } from './revert';
