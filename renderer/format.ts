// Numbers and words as people read them: thousands separators, and the
// singular or plural form by count.

const COUNT = new Intl.NumberFormat('en-US');

/** A count with thousands separators ("12,345"). */
export function formatCount(n: number | bigint): string {
  return COUNT.format(n);
}

/** `one` for a count of 1, `many` otherwise ("1 generation", "2 generations"). */
export function plural(n: number | bigint, one: string, many: string): string {
  return n === 1 || n === 1n ? one : many;
}

/** Count and word together ("1 generation", "1,024 generations"). */
export function countOf(n: number | bigint, one: string, many: string): string {
  return `${formatCount(n)} ${plural(n, one, many)}`;
}

/** `abcdef…uvwxyz`: the two ends of a long id (the whole id is in the cell's title and copied by its button). */
export function middleTruncate(text: string, keep = 8): string {
  return text.length <= 2 * keep + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}
