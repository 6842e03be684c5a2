// Numbers, words and ids as people read them. Counts and times are formatted
// by the contract's one rule (core/contract/format.ts); only display helpers
// that no other surface needs live here.
export { countOf, formatCount, plural, readableMicros, readableTime, type ReadableTime } from '../core/contract/format';

/** `abcdef…uvwxyz`: the two ends of a long id (the whole id is in the cell's title and copied by its button). */
export function middleTruncate(text: string, keep = 8): string {
  return text.length <= 2 * keep + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}
