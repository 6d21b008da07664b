// The storage suite against SQLite, over the files a cairn home already holds; and those files
// written by the stores of today read back the same through the interface.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../src/chat/chat-store.js';
import { EventLog } from '../src/drive/event-log.js';
import { makeTicket } from '../src/drive/tickets.js';
import { LinksStore, linksPath } from '../src/storage/links-store.js';
import { MarksStore } from '../src/storage/marks-store.js';
import type { ServerStore } from '../src/storage/server-store.js';
import { SqliteServerStore, sqliteStorePaths } from '../src/storage/sqlite-store.js';
import { corpusEvents, drivenSession, storageSuite } from './storage-suite.js';

const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));
const homes = new WeakMap<ServerStore, string>();
const openAt = (home: string): ServerStore => {
  const store = new SqliteServerStore(home);
  homes.set(store, home);
  return store;
};

describe('the SQLite store', () => {
  storageSuite({
    fresh: async () => openAt(tempDir('cairn-store-')),
    async reopen(store) {
      await store.close();
      return openAt(homes.get(store)!);
    },
    async storedUsers(store) {
      const file = sqliteStorePaths(homes.get(store)!).accounts;
      return [file, `${file}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1'))
        .join('');
    },
  });

  it('reads what the stores of today wrote in a cairn home, from the same files', async () => {
    const home = tempDir('cairn-store-');
    const events = corpusEvents().slice(0, 8);
    const log = new EventLog(join(home, 'drive.sqlite'));
    log.upsert(drivenSession('s1'));
    for (const event of events) log.append('s1', event);
    log.shutdown();
    const chat = new ChatStore(join(home, 'chat.sqlite'));
    const project = chat.project('/home/someone/p');
    const session = chat.createSession(project.id, 'claude', 'native-1');
    chat.addMessage({
      id: 'm1',
      sessionId: session.id,
      role: 'user',
      content: 'hello',
      events: '',
      createdAt: 5,
      images: [],
      outputTokens: null,
      durationMs: null,
      tokensPerSecond: null,
      ttftMs: null,
    });
    chat.close();
    const links = new LinksStore(linksPath(home));
    links.add({
      kind: 'handoff',
      from: { agent: 'claude', sid: 'a' },
      to: { agent: 'codex', sid: 'b' },
      created_at: 1,
    });
    links.close();
    const marks = new MarksStore(join(home, 'marks.sqlite'));
    marks.write('claude', 'a', { starred: true }, 7);
    marks.close();
    const ticket = makeTicket(home, 'laptop');
    if (!ticket.ok) throw new Error(ticket.error.message);

    const store = new SqliteServerStore(home);
    try {
      expect(await store.drive.heldSeq('s1')).toBe(8);
      expect(await store.drive.events('s1')).toEqual(events);
      expect(await store.drive.append('s1', corpusEvents().slice(0, 9))).toEqual({
        stored: 1,
        repeats: 8,
        heldSeq: 9,
      });
      expect((await store.chat.sessionByNative('claude', 'native-1'))?.id).toBe(session.id);
      expect((await store.chat.messages(session.id)).map((m) => m.content)).toEqual(['hello']);
      expect((await store.links.read({ sid: 'b' })).map((l) => l.from.sid)).toEqual(['a']);
      expect((await store.marks.read()).map((m) => [m.sid, m.starred])).toEqual([['a', true]]);
      expect(await store.tickets.owner(ticket.ticket)).toBe('laptop');
    } finally {
      await store.close();
    }
    // And what the interface wrote, today's stores read.
    const reread = new EventLog(join(home, 'drive.sqlite'));
    expect(reread.heldSeq('s1')).toBe(9);
    reread.shutdown();
  });
});
