// Which session carries on from which: a hand-off or a fork names its origin here, in a database
// of cairn's own under `$CAIRN_HOME` (never in the index, which can be rebuilt, and never in an
// agent's folders). The CLI writes it without a daemon and the daemon reads it, so both open the
// same file; WAL and a busy timeout let them share it.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionLink, SessionLinkKind, SessionLinkVia } from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session_links (
  kind TEXT NOT NULL, from_agent TEXT NOT NULL, from_sid TEXT NOT NULL,
  to_agent TEXT NOT NULL, to_sid TEXT NOT NULL, at_item TEXT, created_at INTEGER NOT NULL,
  PRIMARY KEY (from_agent, from_sid, to_agent, to_sid)
);
CREATE INDEX IF NOT EXISTS session_links_to ON session_links (to_agent, to_sid);
`;

/** The links file of a cairn home. */
export const linksPath = (cairnHome: string): string => join(cairnHome, 'links.sqlite');

interface LinkRow {
  kind: string;
  from_agent: string;
  from_sid: string;
  to_agent: string;
  to_sid: string;
  at_item: string | null;
  via: string | null;
  created_at: number;
}

function toLink(r: LinkRow): SessionLink {
  return {
    kind: r.kind as SessionLinkKind,
    from: { agent: r.from_agent, sid: r.from_sid },
    to: { agent: r.to_agent, sid: r.to_sid },
    ...(r.at_item === null ? {} : { at_item: r.at_item }),
    ...(r.via === null ? {} : { via: r.via as SessionLinkVia }),
    created_at: r.created_at,
  };
}

export class LinksStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // Files from before links said which way they were made gain the column; their rows keep null.
    const columns = this.db.prepare('PRAGMA table_info(session_links)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'via')) this.db.exec('ALTER TABLE session_links ADD COLUMN via TEXT');
  }

  /** Records a link; linking the same two sessions again keeps the latest kind and item. */
  add(link: SessionLink): SessionLink {
    this.db
      .prepare(
        `INSERT INTO session_links (kind, from_agent, from_sid, to_agent, to_sid, at_item, via, created_at)
         VALUES (@kind, @from_agent, @from_sid, @to_agent, @to_sid, @at_item, @via, @created_at)
         ON CONFLICT (from_agent, from_sid, to_agent, to_sid) DO UPDATE SET
           kind = excluded.kind, at_item = excluded.at_item, via = excluded.via,
           created_at = excluded.created_at`,
      )
      .run({
        kind: link.kind,
        from_agent: link.from.agent,
        from_sid: link.from.sid,
        to_agent: link.to.agent,
        to_sid: link.to.sid,
        at_item: link.at_item ?? null,
        via: link.via ?? null,
        created_at: link.created_at,
      });
    return link;
  }

  /** Links with a session matching the filter at either end, oldest first. */
  read(filter: { agent?: string; sid?: string } = {}): SessionLink[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM session_links
         WHERE ((@agent IS NULL OR from_agent = @agent) AND (@sid IS NULL OR from_sid = @sid))
            OR ((@agent IS NULL OR to_agent = @agent) AND (@sid IS NULL OR to_sid = @sid))
         ORDER BY created_at, rowid`,
      )
      .all({ agent: filter.agent ?? null, sid: filter.sid ?? null }) as LinkRow[];
    return rows.map(toLink);
  }

  close(): void {
    this.db.close();
  }
}

/**
 * The links in a cairn home with a session matching the filter at either end; none when the home
 * has no links file yet, so reading never creates one. A file that cannot be read is an error
 * naming it.
 */
export function readLinks(cairnHome: string, filter: { agent?: string; sid?: string } = {}): SessionLink[] {
  const path = linksPath(cairnHome);
  if (!existsSync(path)) return [];
  let store: LinksStore | undefined;
  try {
    store = new LinksStore(path);
    return store.read(filter);
  } catch (error) {
    throw new Error(`cannot read the session links in ${path}: ${(error as Error).message}`);
  } finally {
    store?.close();
  }
}
