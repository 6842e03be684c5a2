// The terminal text of `gf checkpoint diff`: a table fitted to the terminal
// width that leads with what a person reads (change, display fields, changed
// fields, middle-truncated ids), `--wide` for every column untruncated, and
// `--stat` like `git diff --stat`. Pure string work over contract rows.
import { changedFieldList, parseDisplay, type DiffStatResult } from '../contract/diff';

/** One decoded result cell as the CLI's decoder gives it. */
type Cell = string | number | boolean | null;
type Row = Readonly<Record<string, Cell>>;

/** Narrowest a truncated column gets (characters). */
const MIN_COLUMN = 6;
const GAP = '  ';

const KIND_MARK: Readonly<Record<string, string>> = { added: '+ added', removed: '- removed', modified: '~ modified', unchanged: '  unchanged' };

/** Characters of `s` as a person counts them (code points). */
function width(s: string): number {
  return [...s].length;
}

/** `s` cut to `n` characters with `…` at the end. */
function cutEnd(s: string, n: number): string {
  const cp = [...s];
  return cp.length <= n ? s : `${cp.slice(0, Math.max(0, n - 1)).join('')}…`;
}

/** `s` cut to `n` characters with `…` in the middle (ids: both ends identify). */
export function cutMiddle(s: string, n: number): string {
  const cp = [...s];
  if (cp.length <= n) return s;
  const head = Math.ceil((n - 1) / 2);
  const tail = Math.max(0, n - 1 - head);
  return `${cp.slice(0, head).join('')}…${tail === 0 ? '' : cp.slice(cp.length - tail).join('')}`;
}

function text(c: Cell | undefined): string {
  return c === null || c === undefined ? '' : String(c).replace(/[\r\n\t]+/g, ' ');
}

/**
 * Lays out `header` + `rows` in columns fitted to `maxWidth`: columns listed
 * in `shrinkable` give up width (widest first, never below `MIN_COLUMN`)
 * until the line fits; `middle` columns are cut in the middle, others at the end.
 */
export function fitTable(header: readonly string[], rows: readonly (readonly string[])[], maxWidth: number, shrinkable: ReadonlySet<number>, middle: ReadonlySet<number>): string {
  const widths = header.map((h, k) => Math.max(width(h), ...rows.map((r) => width(r[k] ?? ''))));
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (const k of shrinkable) if ((widths[k] as number) > MIN_COLUMN && (widest < 0 || (widths[k] as number) > (widths[widest] as number))) widest = k;
    if (widest < 0) break;
    widths[widest] = Math.max(MIN_COLUMN, (widths[widest] as number) - Math.max(1, total() - maxWidth));
  }
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, k) => {
        const w = widths[k] as number;
        const cut = middle.has(k) ? cutMiddle(c, w) : cutEnd(c, w);
        return k === cells.length - 1 ? cut : cut + ' '.repeat(w - width(cut));
      })
      .join(GAP)
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** Every column untruncated (`--wide`), aligned. */
function wideTable(names: readonly string[], rows: readonly Row[]): string {
  return fitTable(names, rows.map((r) => names.map((n) => text(r[n]))), Number.POSITIVE_INFINITY, new Set(), new Set());
}

/** "rows X–Y of N" of a display page (N omitted while the engine has not counted the whole list). */
function rowsLine(rows: readonly Row[]): string {
  if (rows.length === 0) return 'no rows\n';
  const first = text(rows[0]?.['row_number']);
  const last = text(rows[rows.length - 1]?.['row_number']);
  const total = rows[0]?.['total_rows'] ?? null;
  return `rows ${first}–${last}${total === null ? '' : ` of ${text(total)}`}\n`;
}

/** The id a person uses to refer to a record row: its record UUID, or its identity fingerprint. */
function recordId(r: Row): string {
  return text(r['record_uuid']) || text(r['record_identity_fingerprint']);
}

/**
 * The default text of a diff page, fitted to `columns` characters.
 *
 * Display pages: change, the family's display fields, changed fields and
 * the record id (middle-truncated), then "rows X–Y of N". Plain record
 * pages: change, family and id. Summary pages: family, change and row
 * counts. `wide` prints every column untruncated instead.
 */
export function diffText(rows: readonly Row[], names: readonly string[], columns: number, wide: boolean, stat: DiffStatResult | null = null): string {
  if (wide) return wideTable(names, rows) + (names.includes('row_number') ? rowsLine(rows) : '');
  if (names.includes('display')) {
    const fields: string[] = [];
    for (const r of rows) for (const k of Object.keys(parseDisplay(r['display'] as string | null))) if (!fields.includes(k)) fields.push(k);
    const header = ['change', ...fields, 'changed', 'id'];
    const body = rows.map((r) => {
      const d = parseDisplay(r['display'] as string | null);
      return [KIND_MARK[text(r['change_kind'])] ?? text(r['change_kind']), ...fields.map((f) => text(d[f] ?? null)), changedFieldList(r['changed_fields'] as string | null).join(', '), recordId(r)];
    });
    const shrink = new Set(fields.map((_, k) => k + 1).concat([fields.length + 1, fields.length + 2]));
    return fitTable(header, body, columns, shrink, new Set([fields.length + 2])) + rowsLine(rows);
  }
  if (names.includes('record_identity_fingerprint')) {
    const body = rows.map((r) => [KIND_MARK[text(r['change_kind'])] ?? text(r['change_kind']), `${text(r['scope'])}/${text(r['record_family_id'])}`, recordId(r)]);
    return fitTable(['change', 'family', 'id'], body, columns, new Set([1, 2]), new Set([2]));
  }
  // Summary pages: each family's added, removed and modified records (from the exact statistics), then its row counts.
  const byKey = new Map((stat?.families ?? []).map((f) => [`${f.capability_id}/${f.record_family_id}`, f]));
  const count = (n: Cell | undefined): string => (n === null || n === undefined || n === '' ? '' : Number(n).toLocaleString('en-US'));
  const body = rows.map((r) => {
    const key = `${text(r['capability_id'])}/${text(r['record_family_id'])}`;
    const f = byKey.get(key);
    return [
      key,
      KIND_MARK[text(r['change_kind'])]?.trim() ?? text(r['change_kind']),
      ...(stat === null ? [] : [count(f?.added), count(f?.removed), count(f?.modified)]),
      count(r['from_row_count']),
      count(r['to_row_count']),
    ];
  });
  const header = ['family', 'change', ...(stat === null ? [] : ['added', 'removed', 'modified']), 'from rows', 'to rows'];
  return fitTable(header, body, columns, new Set([0]), new Set());
}

/**
 * `--stat`: one line per changed participant like `git diff --stat`
 * (`family | N +++---~~~`, the bar scaled to the widest), the changed
 * cells per field under it, and the headline (bookkeeping apart).
 */
export function statText(stat: DiffStatResult, columns: number): string {
  const changed = stat.families.filter((f) => f.change_kind !== 'unchanged');
  const names = changed.map((f) => `${f.capability_id}/${f.record_family_id}${f.bookkeeping ? ' (bookkeeping)' : ''}`);
  const nameWidth = Math.min(Math.max(0, ...names.map(width)), Math.max(12, Math.floor(columns / 2)));
  const totals = changed.map((f) => f.added + f.removed + f.modified);
  const countWidth = Math.max(1, ...totals.map((n) => n.toLocaleString('en-US').length));
  const barRoom = Math.max(10, columns - nameWidth - countWidth - 6);
  const most = Math.max(1, ...totals);
  const lines: string[] = [];
  changed.forEach((f, k) => {
    const n = totals[k] as number;
    // The bar's length is the family's share of the largest; its marks split it by kind (each kind present shows).
    const room = n === 0 ? 0 : Math.max(1, Math.round((n / most) * barRoom));
    const part = (x: number): number => (x === 0 ? 0 : Math.max(1, Math.floor((x / n) * room)));
    const bar = '+'.repeat(part(f.added)) + '-'.repeat(part(f.removed)) + '~'.repeat(part(f.modified));
    lines.push(` ${cutEnd(names[k] as string, nameWidth).padEnd(nameWidth)} | ${n.toLocaleString('en-US').padStart(countWidth)} ${bar}`);
    for (const c of f.changed_cells) lines.push(` ${''.padEnd(nameWidth)} |   ${c.field} changed in ${c.records.toLocaleString('en-US')} record${c.records === 1 ? '' : 's'}`);
  });
  lines.push(` ${stat.headline}`);
  return lines.join('\n') + '\n';
}
