// Paging limits, declared once: every paged operation (checkpoint lists, view
// records, diffs) takes the same page sizes.
import { GfError } from '../errors';
import { DIFF_PAGE_LIMITS } from './diff';

/** Page size bounds and default of every paged operation (`limits.*_page_*` of checkpoint-api-v1.json). */
export const PAGE_LIMITS = DIFF_PAGE_LIMITS;

/** A validated page size (the default when absent), or `GF_VALIDATION`. */
export function validateLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return PAGE_LIMITS.default;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
    throw new GfError('GF_VALIDATION', 'limit must be an integer from 1 to 10000', { field: 'limit', min: PAGE_LIMITS.min, max: PAGE_LIMITS.max });
  }
  return limit;
}
