// People and their workstations for a server on SQLite: `accounts.sqlite` under `$CAIRN_HOME`, a
// file of its own since no store kept them before. Tokens are kept as digests only.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import {
  checkName,
  checkRole,
  checkVisibility,
  newToken,
  tokenDigest,
  toUser,
  toWorkstation,
  type UserDb,
  type WorkstationDb,
} from './accounts.js';
import {
  type Role,
  StoreRefused,
  type UserRecord,
  type Visibility,
  type WorkstationRecord,
} from './server-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  name TEXT PRIMARY KEY, role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  token_sha256 BLOB NOT NULL UNIQUE, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS workstations (
  name TEXT PRIMARY KEY, owner TEXT NOT NULL REFERENCES users (name),
  visibility TEXT NOT NULL CHECK (visibility IN ('private', 'shared')), created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS workstations_owner ON workstations (owner);
`;

export class SqliteAccounts {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(SCHEMA);
  }

  addUser(name: string, role: Role, now = Date.now()): { user: UserRecord; token: string } {
    checkName('user', name);
    checkRole(role);
    const token = newToken();
    const added = this.db
      .prepare('INSERT OR IGNORE INTO users (name, role, token_sha256, created_at) VALUES (?, ?, ?, ?)')
      .run(name, role, tokenDigest(token), now);
    if (added.changes === 0) throw new StoreRefused(`there is already a user named ${name}`);
    return { user: { name, role, createdAt: now }, token };
  }

  renewToken(name: string): string | undefined {
    const token = newToken();
    const changed = this.db
      .prepare('UPDATE users SET token_sha256 = ? WHERE name = ?')
      .run(tokenDigest(token), name);
    return changed.changes === 0 ? undefined : token;
  }

  user(name: string): UserRecord | undefined {
    const row = this.db.prepare('SELECT name, role, created_at FROM users WHERE name = ?').get(name) as
      | UserDb
      | undefined;
    return row && toUser(row);
  }

  userByToken(token: string): UserRecord | undefined {
    const row = this.db
      .prepare('SELECT name, role, created_at FROM users WHERE token_sha256 = ?')
      .get(tokenDigest(token)) as UserDb | undefined;
    return row && toUser(row);
  }

  users(): UserRecord[] {
    const rows = this.db.prepare('SELECT name, role, created_at FROM users ORDER BY name').all() as UserDb[];
    return rows.map(toUser);
  }

  removeUser(name: string): boolean {
    const owned = this.db
      .prepare('SELECT name FROM workstations WHERE owner = ? ORDER BY name')
      .pluck()
      .all(name) as string[];
    if (owned.length > 0)
      throw new StoreRefused(`user ${name} still owns workstations: ${owned.join(', ')}; remove them first`);
    return this.db.prepare('DELETE FROM users WHERE name = ?').run(name).changes > 0;
  }

  addWorkstation(name: string, owner: string, visibility: Visibility, now = Date.now()): WorkstationRecord {
    checkName('workstation', name);
    checkVisibility(visibility);
    return this.db.transaction(() => {
      if (!this.user(owner)) throw new StoreRefused(`no user named ${owner} to own workstation ${name}`);
      const added = this.db
        .prepare(
          'INSERT OR IGNORE INTO workstations (name, owner, visibility, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(name, owner, visibility, now);
      if (added.changes === 0) throw new StoreRefused(`there is already a workstation named ${name}`);
      return { name, owner, visibility, createdAt: now };
    })();
  }

  workstation(name: string): WorkstationRecord | undefined {
    const row = this.db.prepare('SELECT * FROM workstations WHERE name = ?').get(name) as
      | WorkstationDb
      | undefined;
    return row && toWorkstation(row);
  }

  workstations(filter: { owner?: string } = {}): WorkstationRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM workstations WHERE (@owner IS NULL OR owner = @owner) ORDER BY name')
      .all({ owner: filter.owner ?? null }) as WorkstationDb[];
    return rows.map(toWorkstation);
  }

  setVisibility(name: string, visibility: Visibility): boolean {
    checkVisibility(visibility);
    return (
      this.db.prepare('UPDATE workstations SET visibility = ? WHERE name = ?').run(visibility, name).changes >
      0
    );
  }

  removeWorkstation(name: string): boolean {
    return this.db.prepare('DELETE FROM workstations WHERE name = ?').run(name).changes > 0;
  }

  close(): void {
    this.db.close();
  }
}
