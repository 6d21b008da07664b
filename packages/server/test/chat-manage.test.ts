// Renaming, archiving and deleting chats over the real server and the scripted agent: each acts on
// cairn's own records, and the agent's files in the same home stay byte for byte as they were.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
import { chatServer, closeAll } from './support/chat.js';

afterEach(closeAll);

const AGENT_SESSION = '55604662-cf2a-4331-851a-ec234028f8ca';

/** Every file under `root` but cairn's own home, with its bytes' hash and its modification time. */
function agentFiles(root: string, cairnHome: string): Record<string, string> {
  const seen: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === cairnHome) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
        seen[relative(root, path)] = `${hash} ${statSync(path).mtimeMs}`;
      }
    }
  };
  walk(root);
  return seen;
}

it('renames, archives, unarchives and deletes a chat, touching only cairn’s records', async () => {
  const c = await chatServer({ WIRE_AGENT_CHUNKS: '3' });
  const root = dirname(c.cairnHome);
  // A session the agent wrote itself, in the home the agents run with.
  const agentDir = join(root, '.claude', 'projects', '-work-spotter');
  mkdirSync(agentDir, { recursive: true });
  copyFileSync(
    corpusPath('claude/projects/-work-spotter/short.jsonl'),
    join(agentDir, `${AGENT_SESSION}.jsonl`),
  );
  const before = agentFiles(root, c.cairnHome);
  expect(Object.keys(before)).toContain(
    join('.claude', 'projects', '-work-spotter', `${AGENT_SESSION}.jsonl`),
  );

  const id = await c.newChat();
  const tab = await c.tab(id);
  await tab.ready();
  tab.send({ type: 'user_message', content: 'Tell me a story' });
  await tab.turnsEnded(1);

  // Rename: the person's title is kept, shown in the list and told to the open tab.
  const renamed = await c.api('POST', '/api/sessions/rename', { sessionId: id, title: '  Story   time ' });
  expect(renamed.status).toBe(200);
  expect(renamed.body.session).toMatchObject({ id, title: 'Story time' });
  await tab.until(
    () => tab.events.some((e) => e.type === 'session_renamed' && e.title === 'Story time'),
    'rename',
  );
  // A later turn does not put the first prompt's title back.
  tab.send({ type: 'user_message', content: 'Another one' });
  await tab.turnsEnded(2);
  const listed = await c.api('GET', '/api/sessions');
  expect(listed.body.sessions.find((s: { id: string }) => s.id === id).title).toBe('Story time');
  expect((await c.api('POST', '/api/sessions/rename', { sessionId: id, title: '   ' })).body.error).toMatch(
    /blank/,
  );
  expect((await c.api('POST', '/api/sessions/rename', { sessionId: 'nope', title: 'x' })).status).toBe(404);
  expect((await c.api('POST', '/api/sessions/rename', { sessionId: id })).body.error).toMatch(/title/);

  // Archive: out of the default list, in the archived one; unarchive brings it back.
  const other = await c.newChat();
  const archived = await c.api('POST', '/api/sessions/archive', { sessionId: id, archived: true });
  expect(archived.body.session).toMatchObject({ id, archived: true, title: 'Story time' });
  const ids = async (query = '') =>
    (await c.api('GET', `/api/sessions${query}`)).body.sessions.map((s: { id: string }) => s.id);
  expect(await ids()).toEqual([other]);
  expect(await ids('?archived=true')).toEqual([id]);
  await c.api('POST', '/api/sessions/archive', { sessionId: id, archived: false });
  expect((await ids()).sort()).toEqual([id, other].sort());
  expect(await ids('?archived=true')).toEqual([]);

  // Delete: the open tab is closed, the chat and its messages are gone from cairn's store.
  const closed = new Promise<number>((resolve) => tab.ws.once('close', (code: number) => resolve(code)));
  const deleted = await c.api('POST', '/api/sessions/delete', { sessionId: id });
  expect(deleted).toEqual({ status: 200, body: { deleted: id } });
  expect(await closed).toBe(4404);
  expect(await ids()).toEqual([other]);
  expect((await c.api('POST', '/api/sessions/delete', { sessionId: id })).status).toBe(404);
  const db = new Database(join(c.cairnHome, 'chat.sqlite'), { readonly: true });
  try {
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get(id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM chat_sessions WHERE id = ?').get(id)).toEqual({ n: 0 });
  } finally {
    db.close();
  }

  expect(agentFiles(root, c.cairnHome)).toEqual(before);
});

it('refuses to delete a chat while its turn runs, and deletes it once stopped', async () => {
  const c = await chatServer({ WIRE_AGENT_MODE: 'hang' });
  const id = await c.newChat();
  const tab = await c.tab(id);
  await tab.ready();
  tab.send({ type: 'user_message', content: 'wait forever' });
  await tab.until(() => tab.events.some((e) => e.type === 'run_state' && e.runState.busy), 'busy');
  const refused = await c.api('POST', '/api/sessions/delete', { sessionId: id });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatch(/stop it first/);
  tab.send({ type: 'stop' });
  await tab.turnsEnded(1);
  expect((await c.api('POST', '/api/sessions/delete', { sessionId: id })).status).toBe(200);
  expect((await c.api('GET', '/api/sessions')).body.sessions).toEqual([]);
});
