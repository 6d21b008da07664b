// The search worker: answers searches over a read-only connection of its own. The index's journal
// lets it read while the daemon's thread writes, and a search that matches much of a large index
// (hundreds of milliseconds) holds up no other client.
import Database from 'better-sqlite3';
import { pageCheck } from './index-db.js';
import type { SearchRow } from './search-query.js';
import type { SearchTask } from './search-thread.js';

/** Kept between searches: a new connection's first search pays tens of milliseconds to warm up. */
let kept: { key: string; db: Database.Database } | undefined;

export default function search(task: SearchTask): SearchRow[] {
  // A damaged index is replaced by a new file at the same path, in a new generation: a connection
  // kept from before would go on reading the old one.
  const key = `${task.generation}:${task.file}`;
  if (kept?.key !== key) {
    kept?.db.close();
    kept = undefined;
    kept = { key, db: new Database(task.file, { readonly: true, fileMustExist: true }) };
  }
  return kept.db.prepare(task.statement.sql).all(...task.statement.params) as SearchRow[];
}

/** Reads every page of the index over a connection of its own, for IndexDb.checkPages. */
export function checkPages(task: { file: string }): string {
  const db = new Database(task.file, { readonly: true, fileMustExist: true });
  try {
    return pageCheck(db);
  } finally {
    db.close();
  }
}
