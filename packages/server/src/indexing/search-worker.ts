// The search worker: answers searches over a read-only connection of its own. The index's journal
// lets it read while the daemon's thread writes, and a search that matches much of a large index
// (hundreds of milliseconds) holds up no other client.
import Database from 'better-sqlite3';
import { pageCheck } from './index-db.js';
import type { SearchRow } from './search-query.js';
import type { SearchTask } from './search-thread.js';

/** Kept between searches: a new connection's first search pays tens of milliseconds to warm up. */
let kept: { key: string; db: Database.Database } | undefined;

/** The connection to the index `task` names, opened once per index. */
function connection(task: Pick<SearchTask, 'file' | 'generation'>): Database.Database {
  // A damaged index is replaced by a new file at the same path, in a new generation: a connection
  // kept from before would go on reading the old one.
  const key = `${task.generation}:${task.file}`;
  if (kept?.key !== key) {
    kept?.db.close();
    kept = undefined;
    kept = { key, db: new Database(task.file, { readonly: true, fileMustExist: true }) };
  }
  return kept.db;
}

export default function search(task: SearchTask): SearchRow[] {
  return connection(task)
    .prepare(task.statement.sql)
    .all(...task.statement.params) as SearchRow[];
}

/**
 * Opens the connection and reads what every search reads first (the schema, the full-text index's
 * structure), so that the first search a person makes does not wait for them.
 */
export function warm(task: Pick<SearchTask, 'file' | 'generation'>): void {
  connection(task).prepare('SELECT count(*) FROM docs_fts WHERE docs_fts MATCH \'"cairn-warm"\'').get();
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
