// The diff's memos of one open project as one value: what a `ProjectSession`
// lists among the caches it owns. Each memo lives in the project's `ProjectCaches`.
import type { ProjectCaches } from '../project/index';
import { SortedObjects } from './merge-raw-rows';
import { WindowedMemo } from './merge-windowed';
import { WholeSides } from './page-record-display';

/** What the diff remembers about one project's objects (all content-keyed, bounded). */
export interface DiffCaches {
  /** Objects found in plain, identity-sorted layout, by family and digest (4096). */
  readonly sortedObjects: SortedObjects;
  /** Layouts of opened participants (16) and the released window scratch buffers (2 per layout, 64 MB in all). */
  readonly windowed: WindowedMemo;
  /** Whole participants decoded for display pages (4). */
  readonly wholeSides: WholeSides;
}

/** The diff's memos kept in `caches` (made on first use; cleared with them). */
export function diffCachesOf(caches: ProjectCaches): DiffCaches {
  return { sortedObjects: caches.layer(SortedObjects), windowed: caches.layer(WindowedMemo), wholeSides: caches.layer(WholeSides) };
}
