// The rows of one store session that changed since a live read last looked: rows added past the
// highest rowid read, and rows rewritten in place (OpenCode rewrites a part as it streams) among
// those that may still change. Every read runs in one read transaction, so that a part never comes
// without the message it belongs to; nothing is written.
import { type Db, prepared, SESSION_TREE_IDS, type StoreLine, withStore } from './sqlite.js';

/** What a read saw of one table: where the next one picks up. */
export interface TableMark {
  /** The highest rowid read. */
  last: number;
  /** The latest `time_updated` read: a row rewritten since carries a time at least this. */
  updated: number;
  /** The lowest rowid whose row may still be rewritten (the rows of messages still open). */
  floor: number;
}

export interface StoreMarks {
  /** The session rows' highest rowid and latest `time_updated` read (no floor: they are few). */
  session: Omit<TableMark, 'floor'>;
  message: TableMark;
  part: TableMark;
}

export interface StoreChanges {
  /** The session's row and those of its children, at any depth, added or rewritten since the marks. */
  sessions: StoreLine[];
  /** Message and part rows added or rewritten since the marks, every one of them on a first read. */
  messages: StoreLine[];
  parts: StoreLine[];
  /**
   * How many message and part rows the session tree holds now, to tell rows deleted; counted (over
   * the session's whole index) only when a later read found no row added or rewritten, which is
   * when a notice may have come from rows deleted.
   */
  counts?: { messages: number; parts: number };
}

interface Transacting extends Db {
  transaction<T>(work: () => T): () => T;
}

const asLine = (table: string, r: Record<string, unknown>): StoreLine => {
  const { __rowid, ...row } = r;
  return { table, rowid: __rowid as number, row };
};

/**
 * The rows of session `id` (and its children) that changed since `since`; every row when `since`
 * is absent, in the order a whole export gives them.
 */
export function readStoreChanges(db: string, id: string, since?: StoreMarks): Promise<StoreChanges> {
  return withStore(db, (conn) =>
    (conn as Transacting).transaction(() => {
      const ids = (prepared(conn, SESSION_TREE_IDS).all(id) as { id: string }[]).map((r) => r.id);
      const sessionMark = since?.session ?? { last: -1, updated: -1 };
      const sessions = (
        prepared(
          conn,
          `SELECT _rowid_ AS __rowid, * FROM session WHERE id IN (${ids.map(() => '?').join(', ')})
             AND (_rowid_ > ? OR time_updated >= ?) ORDER BY time_created, id`,
        ).all(...ids, sessionMark.last, sessionMark.updated) as Record<string, unknown>[]
      ).map((r) => asLine('session', r));
      if (!since && sessions.length === 0) return { sessions: [], messages: [], parts: [] };
      const marks = ids.map(() => '?').join(', ');
      const count = (table: string) =>
        (
          prepared(conn, `SELECT count(*) AS n FROM ${table} WHERE session_id IN (${marks})`).get(...ids) as {
            n: number;
          }
        ).n;
      if (!since) {
        const messages = (
          prepared(
            conn,
            `SELECT _rowid_ AS __rowid, * FROM message WHERE session_id IN (${marks}) ORDER BY time_created, id`,
          ).all(...ids) as Record<string, unknown>[]
        ).map((r) => asLine('message', r));
        const parts = (
          prepared(
            conn,
            `SELECT _rowid_ AS __rowid, * FROM part WHERE session_id IN (${marks}) ORDER BY message_id, id`,
          ).all(...ids) as Record<string, unknown>[]
        ).map((r) => asLine('part', r));
        return { sessions, messages, parts };
      }
      // The rowid range leads (`+session_id` keeps SQLite off the session index, which would visit
      // every row of the session): only rows from the floor on are looked at.
      const changed = (table: string, mark: TableMark) =>
        (
          prepared(
            conn,
            `SELECT _rowid_ AS __rowid, * FROM ${table}
               WHERE _rowid_ >= ? AND +session_id IN (${marks}) AND (_rowid_ > ? OR time_updated >= ?)
               ORDER BY _rowid_`,
          ).all(Math.min(mark.floor, mark.last + 1), ...ids, mark.last, mark.updated) as Record<
            string,
            unknown
          >[]
        ).map((r) => asLine(table, r));
      const messages = changed('message', since.message);
      const parts = changed('part', since.part);
      if (messages.length > 0 || parts.length > 0) return { sessions, messages, parts };
      return { sessions, messages, parts, counts: { messages: count('message'), parts: count('part') } };
    })(),
  );
}
