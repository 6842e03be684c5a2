// SQLite copies of the benchmark tables for the `sqldiff --primarykey` peer.
import Database from 'better-sqlite3';
import type { BenchNode } from './diff-data';

/** Writes `nodes` into a fresh SQLite file as table `node` with the UUID as declared primary key. */
export function writeSqliteCopy(file: string, nodes: readonly BenchNode[]): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(
      'CREATE TABLE node (node_uuid BLOB PRIMARY KEY, class_id TEXT NOT NULL, label TEXT NOT NULL, properties TEXT, created_at INTEGER NOT NULL, updated_at INTEGER)',
    );
    const ins = db.prepare('INSERT INTO node VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (const n of nodes) ins.run(Buffer.from(n.uuid), n.classId, n.label, n.properties, n.createdAt, n.updatedAt);
    })();
  } finally {
    db.close();
  }
}
