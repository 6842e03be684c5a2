// A thread's checkpoints as a tree (forks made with `update_state`, or by a
// restore, give a checkpoint two children): which branch each checkpoint is
// on, where branches split, and the path of the head. Browser-safe.
import type { ThreadHistoryRow } from './threads';

/** One checkpoint's place in the tree. */
export interface ThreadTreeNode {
  readonly checkpoint_id: string;
  /** The branch it is on: 0 for the head's path, then 1, 2, … for other branches, newest first. */
  readonly branch: number;
  /** True on the path from the head back to the first checkpoint. */
  readonly on_head_path: boolean;
  readonly is_head: boolean;
  /** Checkpoints (among the rows given) whose parent this is; two or more make it a fork point. */
  readonly children: number;
}

/**
 * The tree of history rows (newest first, as `threads.history` gives them;
 * the first row is the head). Only the rows given are considered: a page
 * shows the forks within it.
 */
export function threadTree(rows: readonly ThreadHistoryRow[]): ThreadTreeNode[] {
  const byId = new Map(rows.map((r) => [r.checkpoint_id, r]));
  const children = new Map<string, number>();
  for (const r of rows) if (r.parent_checkpoint_id !== null) children.set(r.parent_checkpoint_id, (children.get(r.parent_checkpoint_id) ?? 0) + 1);
  const branch = new Map<string, number>();
  const walk = (from: string, lane: number) => {
    let id: string | null = from;
    while (id !== null && !branch.has(id)) {
      branch.set(id, lane);
      id = byId.get(id)?.parent_checkpoint_id ?? null;
    }
  };
  const head = rows[0]?.checkpoint_id;
  if (head !== undefined) walk(head, 0);
  let lane = 0;
  for (const r of rows) {
    if (branch.has(r.checkpoint_id)) continue;
    lane += 1;
    walk(r.checkpoint_id, lane); // the newest checkpoint of a branch not yet placed starts it
  }
  return rows.map((r) => ({ checkpoint_id: r.checkpoint_id, branch: branch.get(r.checkpoint_id) ?? 0, on_head_path: branch.get(r.checkpoint_id) === 0, is_head: r.checkpoint_id === head, children: children.get(r.checkpoint_id) ?? 0 }));
}
