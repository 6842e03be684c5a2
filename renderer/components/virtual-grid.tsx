// The one large-table component: @tanstack/react-table for the column and
// cell model, @tanstack/react-virtual for rendering only the visible rows,
// ARIA grid semantics and keyboard navigation. Asks for the next engine page
// as the user scrolls near the end (`onNeedMore`), so nothing loads a whole
// participant up front.
//
// The table's row model is built over the visible window only (no sorting or
// grouping is needed), so a page arriving costs the page and the window, never
// every row loaded: `rows` may be an append-only array that grows in place.
//
// Rows can expand inline (`expanded` + `renderExpanded`): an expanded row
// grows to show its detail below its cells, several at once, measured as they
// render. `rowOffset` numbers the rows from a position other than the first
// (a window reached by a jump), so aria-rowindex stays the row's true position.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { tableFeatures, useTable, type ColumnDef } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { DisplayRow } from '../arrow-rows';

/** One displayed column: its id is a column of the row type (typed rows make a renamed column fail `tsc`). */
export interface GridColumn<R = DisplayRow> {
  readonly id: Extract<keyof R, string>;
  /** A unique key when several columns read one field (default: `id`). */
  readonly key?: string;
  readonly header: string;
  /** CSS track size (e.g. `minmax(8rem, 1fr)`). */
  readonly width?: string;
  readonly render?: (row: R) => ReactNode;
  readonly mono?: boolean;
  /** Minimum width in rem (default 8); the grid scrolls sideways below the sum. */
  readonly minRem?: number;
  /** The cell's tooltip (default: its value). */
  readonly title?: (row: R) => string;
}

/** Grid props. */
export interface VirtualGridProps<R> {
  readonly label: string;
  readonly columns: readonly GridColumn<R>[];
  readonly rows: readonly R[];
  readonly rowKey: (row: R, index: number) => string;
  /** Total rows when known (aria-rowcount); otherwise -1 while more pages exist. */
  readonly totalRows?: number;
  readonly hasMore?: boolean;
  readonly loading?: boolean;
  readonly onNeedMore?: () => void;
  readonly onActivate?: (row: R, index: number) => void;
  readonly selectedKey?: string | null;
  readonly rowClass?: (row: R) => string;
  readonly testId?: string;
  readonly emptyText?: string;
  /** `short` for small fixed tables, `tall` for record browsing. */
  readonly size?: 'short' | 'tall';
  /** A new window (`resetKey`) opens at its last row instead of its first (a "Last page" jump shows the last rows). */
  readonly startAtEnd?: boolean;
  /** Told the positions (0-based, in `rows`) of the first and last row in view whenever they change. */
  readonly onRange?: (first: number, last: number) => void;
  /** Grows with its rows (up to most of the window) instead of a fixed height: for short tables such as a diff summary. */
  readonly fit?: boolean;
  /** Keys of the rows shown expanded (their detail below their cells). */
  readonly expanded?: ReadonlySet<string>;
  /** The detail of an expanded row (one cell spanning every column). */
  readonly renderExpanded?: (row: R, index: number) => ReactNode;
  /** Position of `rows[0]` in the whole result (0 unless the rows are a window reached by a jump). */
  readonly rowOffset?: number;
  /** Changing it scrolls back to the first row (a new window or a new filter). */
  readonly resetKey?: string;
  /** The status line below the grid (default: the rows loaded); a function gets the indexes of the first and last row in view. */
  readonly status?: ReactNode | ((first: number, last: number) => ReactNode);
}

const features = tableFeatures({});
const ROW_HEIGHT = 30;
/** First guess of an expanded row's height (measured once rendered). */
const EXPANDED_ESTIMATE = 280;

/** A virtualized, keyboard-navigable ARIA grid over display rows. */
export function VirtualGrid<R extends object>(props: VirtualGridProps<R>) {
  const { label, columns, rows, rowKey, hasMore = false, loading = false, onNeedMore, onActivate, selectedKey = null, rowClass, testId, emptyText = 'No rows.', size = 'tall' } = props;
  const { expanded, renderExpanded, rowOffset = 0, resetKey, status } = props;
  const gridId = useId();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const defs = useMemo<ColumnDef<typeof features, R>[]>(
    () => columns.map((c) => ({ id: c.key ?? c.id, header: c.header, accessorFn: (r: R) => (r[c.id] as string | null | undefined) ?? null })),
    [columns],
  );
  const count = rows.length;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (expanded !== undefined && rows[i] !== undefined && expanded.has(rowKey(rows[i], i)) ? EXPANDED_ESTIMATE : ROW_HEIGHT),
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const firstVisible = items.length === 0 ? 0 : items[0]!.index;
  const lastVisible = items.length === 0 ? -1 : items[items.length - 1]!.index;
  const windowEnd = Math.min(count, lastVisible + 1);
  // Only the rendered window goes through the table's row model.
  const data = useMemo(() => rows.slice(firstVisible, windowEnd), [rows, firstVisible, windowEnd]);
  const table = useTable({ features, columns: defs, data, getRowId: (r, i) => rowKey(r, firstVisible + i) });
  const windowRows = table.getRowModel().rows;

  useEffect(() => {
    if (hasMore && !loading && onNeedMore !== undefined && lastVisible >= count - 40) onNeedMore();
  }, [hasMore, loading, onNeedMore, lastVisible, count]);

  useEffect(() => {
    if (active >= count && count > 0) setActive(count - 1);
  }, [active, count]);

  // A new window or filter starts at its first row (or, with `startAtEnd`, at its last once its rows are here).
  const pendingEnd = useRef(false);
  /** The new window's rows have started loading (rows before that are the previous window's). */
  const loadedSinceReset = useRef(false);
  useEffect(() => {
    setActive(0);
    virtualizer.scrollToOffset(0);
    pendingEnd.current = props.startAtEnd === true;
    loadedSinceReset.current = false;
  }, [resetKey]);
  useEffect(() => {
    if (loading) loadedSinceReset.current = true;
    const complete = !hasMore || (props.totalRows !== undefined && rowOffset + count >= props.totalRows);
    if (!pendingEnd.current || !loadedSinceReset.current || count === 0 || loading || !complete) return;
    pendingEnd.current = false;
    setActive(count - 1);
    // Scrolled on the element itself once laid out (the virtualizer follows the scroll event and renders the last rows).
    const el = scrollRef.current;
    requestAnimationFrame(() => {
      if (el !== null) el.scrollTop = el.scrollHeight;
    });
  }, [count, loading, hasMore, virtualizer, rowOffset, props.totalRows]);
  const rangeStart = virtualizer.range?.startIndex ?? 0;
  const rangeEnd = Math.min(count - 1, virtualizer.range?.endIndex ?? count - 1);
  const onRange = props.onRange;
  useEffect(() => {
    if (count > 0) onRange?.(rangeStart, rangeEnd);
  }, [rangeStart, rangeEnd, count, onRange]);

  // An expanded or collapsed row changes height: measure again.
  useEffect(() => {
    virtualizer.measure();
  }, [expanded, virtualizer]);

  const template = columns.map((c) => c.width ?? `minmax(${c.minRem ?? 8}rem, 1fr)`).join(' ');
  const minWidth = `${columns.reduce((n, c) => n + (c.minRem ?? 8), 0) + 1}rem`;
  const cellId = (i: number) => `${gridId}-r${i}`;

  const move = (to: number) => {
    if (count === 0) return;
    const next = Math.max(0, Math.min(count - 1, to));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    // Keys typed inside an expanded row's detail (its buttons) belong to that control, not to the grid.
    if (e.target !== e.currentTarget) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active + 1),
      ArrowUp: () => move(active - 1),
      PageDown: () => move(active + page),
      PageUp: () => move(active - page),
      Home: () => move(0),
      End: () => move(count - 1),
      Enter: () => {
        const r = rows[active];
        if (r !== undefined) onActivate?.(r, active);
      },
      ' ': () => {
        const r = rows[active];
        if (r !== undefined) onActivate?.(r, active);
      },
    };
    const f = keys[e.key];
    if (f !== undefined) {
      e.preventDefault();
      f();
    }
  };

  const totalRows = props.totalRows ?? (hasMore ? -1 : rowOffset + count);
  return (
    <div className={`grid grid-${size}${props.fit === true ? ' grid-fit' : ''}`} data-testid={testId}>
      <div
        ref={scrollRef}
        className="grid-scroll"
        role="grid"
        aria-label={label}
        aria-rowcount={totalRows < 0 ? -1 : totalRows + 1}
        aria-colcount={columns.length}
        aria-busy={loading}
        tabIndex={0}
        aria-activedescendant={count > 0 ? cellId(active) : undefined}
        onKeyDown={onKey}
      >
        <div className="grid-inner" style={{ minWidth }}>
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row" style={{ gridTemplateColumns: template }}>
            {table.getHeaderGroups()[0]?.headers.map((h, i) => (
              <div role="columnheader" aria-colindex={i + 1} key={h.id} className="grid-cell">
                {columns[i]?.header}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="grid-body" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = windowRows[item.index - firstVisible];
            if (row === undefined) return null;
            const key = row.id;
            const classes = ['grid-row', 'grid-data-row'];
            if (item.index === active) classes.push('is-active');
            if (selectedKey !== null && key === selectedKey) classes.push('is-selected');
            if (rowClass !== undefined) classes.push(rowClass(row.original));
            const open = expanded !== undefined && expanded.has(key);
            if (open) classes.push('is-expanded');
            return (
              <div
                role="row"
                id={cellId(item.index)}
                aria-rowindex={rowOffset + item.index + 2}
                aria-selected={selectedKey !== null ? key === selectedKey : undefined}
                key={key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={classes.join(' ')}
                style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)`, minHeight: ROW_HEIGHT }}
                onClick={() => {
                  setActive(item.index);
                  onActivate?.(row.original, item.index);
                }}
              >
                {row.getAllCells().map((cell, ci) => {
                  const col = columns[ci]!;
                  const v = cell.getValue() as string | null;
                  return (
                    <div
                      role="gridcell"
                      aria-colindex={ci + 1}
                      // The first cell carries the expanded state (a row's aria-expanded is for tree grids only).
                      aria-expanded={renderExpanded !== undefined && ci === 0 ? open : undefined}
                      key={cell.id}
                      data-col={col.key ?? col.id} className={col.mono === true ? 'grid-cell mono' : 'grid-cell'} title={col.title?.(row.original) ?? v ?? ''}>
                      {col.render !== undefined ? col.render(row.original) : v ?? '—'}
                    </div>
                  );
                })}
                {open && renderExpanded !== undefined && (
                  // The detail is not part of the row's click target (its buttons and text are selectable).
                  <div role="gridcell" aria-colindex={1} aria-colspan={columns.length} className="grid-expansion" onClick={(e) => e.stopPropagation()}>
                    {renderExpanded(row.original, item.index)}
                  </div>
                )}
              </div>
            );
          })}
        </div>
        </div>
        {count === 0 && !loading && <p className="grid-empty muted">{emptyText}</p>}
      </div>
      <p className="grid-status muted" aria-live={typeof status === 'function' ? undefined : 'polite'} data-testid={testId === undefined ? undefined : `${testId}-status`}>
        {typeof status === 'function'
          ? status(virtualizer.range?.startIndex ?? 0, Math.min(count - 1, virtualizer.range?.endIndex ?? count - 1))
          : status ?? (loading ? 'Loading…' : `${count} row${count === 1 ? '' : 's'}${hasMore ? ' loaded · scroll for more' : ''}`)}
      </p>
    </div>
  );
}
