// The PostgreSQL store's chat: projects, chat sessions and their messages, settled permission
// cards and chosen options, answering as the chat's SQLite store does, orders included.
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type pg from 'pg';
import {
  type MessageDb,
  type ProjectDb,
  type SessionDb,
  toMessage as toMessageRow,
  toProject,
  toSession,
} from '../chat/chat-store.js';
import { inTransaction } from './postgres-pool.js';
import {
  type ChatRecords,
  type ChatSessionRow,
  type MessageRow,
  type SettledPermissionRow,
  StoreRefused,
} from './server-store.js';

/** How many settled permission cards a session keeps, as the chat's SQLite store does. */
const SETTLED_PERMISSIONS_KEPT = 200;

/** A message row as PostgreSQL gives it: its content as bytes (TEXT refuses NUL, which SQLite keeps). */
type MessageBytesDb = Omit<MessageDb, 'content'> & { content: Buffer };
const toMessage = (r: MessageBytesDb): MessageRow =>
  toMessageRow({ ...r, content: r.content.toString('utf8') });

export function chatRecords(pool: pg.Pool): ChatRecords {
  const one = async <T extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<T | undefined> =>
    (await pool.query<T>(sql, values)).rows[0];
  return {
    async project(path, name) {
      const now = Date.now();
      const created = await one<ProjectDb>(
        `INSERT INTO projects (id, name, path, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (path) DO NOTHING RETURNING *`,
        [randomUUID(), name ?? basename(path), path, now],
      );
      const row = created ?? (await one<ProjectDb>('SELECT * FROM projects WHERE path = $1', [path]));
      if (!row) throw new Error(`the project of ${path} was neither found nor made`);
      return toProject(row);
    },
    async projectById(id) {
      const row = await one<ProjectDb>('SELECT * FROM projects WHERE id = $1', [id]);
      return row && toProject(row);
    },
    async projects() {
      const { rows } = await pool.query<ProjectDb & { session_count: number }>(
        `SELECT p.*, (SELECT COUNT(*) FROM chat_sessions s WHERE s.project_id = p.id) AS session_count
         FROM projects p ORDER BY p.updated_at DESC`,
      );
      return rows.map((r) => ({ ...toProject(r), sessionCount: r.session_count }));
    },
    createSession: (projectId, agent, nativeSessionId, title = 'New chat', workstation = 'local') =>
      inTransaction(pool, async (client) => {
        const now = Date.now();
        const row: ChatSessionRow = {
          id: randomUUID(),
          projectId,
          agent,
          workstation,
          nativeSessionId,
          title,
          createdAt: now,
          updatedAt: now,
        };
        await client.query(
          `INSERT INTO chat_sessions (id, project_id, agent, workstation, native_session_id, title, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [row.id, projectId, agent, workstation, nativeSessionId, title, now],
        );
        await client.query('UPDATE projects SET updated_at = $1 WHERE id = $2', [now, projectId]);
        return row;
      }),
    async session(id) {
      const row = await one<SessionDb>('SELECT * FROM chat_sessions WHERE id = $1', [id]);
      return row && toSession(row);
    },
    async sessionByNative(agent, nativeSessionId) {
      const row = await one<SessionDb>(
        'SELECT * FROM chat_sessions WHERE agent = $1 AND native_session_id = $2',
        [agent, nativeSessionId],
      );
      return row && toSession(row);
    },
    async sessions(projectId, archived) {
      const where = [
        ...(projectId ? ['s.project_id = $1'] : []),
        ...(archived === undefined ? [] : [`s.archived_at IS ${archived ? 'NOT ' : ''}NULL`]),
      ];
      const { rows } = await pool.query<SessionDb & { message_count: number }>(
        `SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count
         FROM chat_sessions s ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.updated_at DESC`,
        projectId ? [projectId] : [],
      );
      return rows.map((r) => ({ ...toSession(r), messageCount: r.message_count }));
    },
    async setNativeSessionId(id, nativeSessionId) {
      await pool.query('UPDATE chat_sessions SET native_session_id = $1 WHERE id = $2', [
        nativeSessionId,
        id,
      ]);
    },
    async rename(id, title) {
      await pool.query('UPDATE chat_sessions SET title = $1 WHERE id = $2', [title, id]);
    },
    async renameByPerson(id, title) {
      await pool.query('UPDATE chat_sessions SET user_title = $1 WHERE id = $2', [title, id]);
    },
    async archive(id, archived) {
      await pool.query('UPDATE chat_sessions SET archived_at = $1 WHERE id = $2', [
        archived ? Date.now() : null,
        id,
      ]);
    },
    deleteSession: (id) =>
      inTransaction(pool, async (client) => {
        for (const table of ['messages', 'settled_permissions', 'session_config'])
          await client.query(`DELETE FROM ${table} WHERE session_id = $1`, [id]);
        await client.query('DELETE FROM chat_sessions WHERE id = $1', [id]);
      }),
    addMessage: (message) =>
      inTransaction(pool, async (client) => {
        // The session's row lock makes messages of one session take turns for their sequence.
        const locked = await client.query('SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE', [
          message.sessionId,
        ]);
        if (locked.rowCount === 0)
          throw new StoreRefused(`no chat session ${message.sessionId} to add a message to`);
        const { rows } = await client.query<{ n: number }>(
          'SELECT COALESCE(MAX(sequence), 0) + 1 AS n FROM messages WHERE session_id = $1',
          [message.sessionId],
        );
        const row: MessageRow = { ...message, sequence: rows[0]!.n };
        await client.query(
          `INSERT INTO messages (id, session_id, sequence, role, content, events, created_at, images, output_tokens,
             duration_ms, tokens_per_second, ttft_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            row.id,
            row.sessionId,
            row.sequence,
            row.role,
            Buffer.from(row.content, 'utf8'),
            row.events,
            row.createdAt,
            JSON.stringify(row.images),
            row.outputTokens,
            row.durationMs,
            row.tokensPerSecond,
            row.ttftMs,
          ],
        );
        await client.query('UPDATE chat_sessions SET updated_at = $1 WHERE id = $2', [
          row.createdAt,
          row.sessionId,
        ]);
        return row;
      }),
    async messages(sessionId) {
      const { rows } = await pool.query<MessageBytesDb>(
        'SELECT * FROM messages WHERE session_id = $1 ORDER BY sequence',
        [sessionId],
      );
      return rows.map(toMessage);
    },
    async workstations() {
      const { rows } = await pool.query<{ workstation: string }>(
        'SELECT DISTINCT workstation FROM chat_sessions',
      );
      return rows.map((r) => r.workstation);
    },
    settlePermission: (sessionId, settled) =>
      inTransaction(pool, async (client) => {
        const requestId = String(settled.request.requestId);
        // Deleted and inserted, so a card settled again counts as the newest.
        await client.query('DELETE FROM settled_permissions WHERE session_id = $1 AND request_id = $2', [
          sessionId,
          requestId,
        ]);
        await client.query(
          `INSERT INTO settled_permissions (session_id, request_id, request, option_id, settled_by, settled_at, rule)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            sessionId,
            requestId,
            JSON.stringify(settled.request),
            settled.optionId,
            settled.by,
            Date.now(),
            settled.rule ? JSON.stringify(settled.rule) : null,
          ],
        );
        await client.query(
          `DELETE FROM settled_permissions WHERE session_id = $1 AND id NOT IN
             (SELECT id FROM settled_permissions WHERE session_id = $1 ORDER BY id DESC LIMIT $2)`,
          [sessionId, SETTLED_PERMISSIONS_KEPT],
        );
      }),
    async settledPermissions(sessionId) {
      const { rows } = await pool.query<{
        request: string;
        option_id: string;
        settled_by: string;
        rule: string | null;
      }>(
        'SELECT request, option_id, settled_by, rule FROM settled_permissions WHERE session_id = $1 ORDER BY id',
        [sessionId],
      );
      return rows.map(
        (r): SettledPermissionRow => ({
          request: JSON.parse(r.request) as Record<string, unknown>,
          optionId: r.option_id,
          by: r.settled_by,
          ...(r.rule ? { rule: JSON.parse(r.rule) as SettledPermissionRow['rule'] } : {}),
        }),
      );
    },
    setConfigValue: (sessionId, configId, value) =>
      inTransaction(pool, async (client) => {
        // Deleted and inserted, so the options are ordered by when they were last chosen.
        await client.query('DELETE FROM session_config WHERE session_id = $1 AND config_id = $2', [
          sessionId,
          configId,
        ]);
        await client.query('INSERT INTO session_config (session_id, config_id, value) VALUES ($1, $2, $3)', [
          sessionId,
          configId,
          JSON.stringify(value),
        ]);
      }),
    async forgetConfigValue(sessionId, configId) {
      await pool.query('DELETE FROM session_config WHERE session_id = $1 AND config_id = $2', [
        sessionId,
        configId,
      ]);
    },
    async configValues(sessionId) {
      const { rows } = await pool.query<{ config_id: string; value: string }>(
        'SELECT config_id, value FROM session_config WHERE session_id = $1 ORDER BY id',
        [sessionId],
      );
      return rows.map((r) => ({ configId: r.config_id, value: JSON.parse(r.value) as string | boolean }));
    },
  };
}
