// The one rule for paths a request names: absolute, or `GF_VALIDATION` in the
// operation's own words (a relative path would resolve against whatever
// directory the engine process happens to run in).
import { isAbsolute } from 'node:path';
import { GfError } from '../errors';

/** What a refused path is called and where it came from. */
export interface AbsolutePathRule {
  /** The sentence a person reads, e.g. "the directory must be an absolute path". */
  readonly sentence: string;
  /** The request field that named it. */
  readonly field: string;
  /** The refusal's `committed` (false: nothing was written; absent: not said). */
  readonly committed?: boolean;
}

/** `path` when absolute; otherwise `GF_VALIDATION` with the rule's sentence and field. */
export function requireAbsolute(path: string, rule: AbsolutePathRule): string {
  if (!isAbsolute(path)) throw new GfError('GF_VALIDATION', rule.sentence, { field: rule.field }, rule.committed);
  return path;
}
