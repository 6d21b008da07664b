// What every server store does, whatever holds its data: one suite, run against SQLite and
// PostgreSQL by the files that open each. The events appended are lines of a real Claude Code
// session from the corpus, so payloads carry what agents really write.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type SessionLink,
  SNIPPET_MARK_END,
  SNIPPET_MARK_START,
  type SyncedDoc,
  type SyncedSession,
} from '@cairn/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
import { RuleRefused } from '../src/chat/permission-rule-store.js';
import type { LoggedEvent, MessageRow, ServerStore } from '../src/storage/server-store.js';
import { readSyncedNotice, StoreRefused, syncedNotice } from '../src/storage/server-store.js';

export interface StoreHarness {
  /** A store over empty state. */
  fresh(): Promise<ServerStore>;
  /** Closes `store` and opens its state again, as a restarted server would. */
  reopen(store: ServerStore): Promise<ServerStore>;
  /** Every byte the store keeps of its users (files, or the table's rows as text). */
  storedUsers(store: ServerStore): Promise<string>;
}

/** The corpus session's lines as the events of a driven session, seq 1 onward. */
export function corpusEvents(): LoggedEvent[] {
  const lines = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'subagent.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  return lines.map((line, i) => {
    const payload = JSON.parse(line) as Record<string, unknown>;
    return { seq: i + 1, eventName: String(payload.type ?? 'line'), payload };
  });
}

export const drivenSession = (sessionRef: string, workstation = 'laptop') => ({
  sessionRef,
  workstation,
  agentKey: 'claude',
  bridge: 'acp',
  cwd: '/home/someone/project',
  nativeSessionId: null,
});

const message = (sessionId: string, content: string, role: MessageRow['role'] = 'user') => ({
  id: `m-${Math.random().toString(36).slice(2)}`,
  sessionId,
  role,
  content,
  events: role === 'assistant' ? '{"type":"agent_message_chunk"}\n' : '',
  createdAt: Date.now(),
  images: role === 'user' ? [{ data: 'iVBORw0KGgo=', mimeType: 'image/png' }] : [],
  outputTokens: role === 'assistant' ? 120 : null,
  durationMs: role === 'assistant' ? 2_345 : null,
  tokensPerSecond: role === 'assistant' ? 51.17 : null,
  ttftMs: role === 'assistant' ? 410 : null,
});

const link = (kind: SessionLink['kind'], from: string, to: string, created_at: number): SessionLink => ({
  kind,
  from: { agent: 'claude', sid: from },
  to: { agent: 'codex', sid: to },
  at_item: `item-${from}`,
  created_at,
});

export function storageSuite(harness: StoreHarness): void {
  let open: ServerStore[] = [];
  const fresh = async () => {
    const store = await harness.fresh();
    open.push(store);
    return store;
  };
  const reopen = async (store: ServerStore) => {
    open = open.filter((s) => s !== store);
    const again = await harness.reopen(store);
    open.push(again);
    return again;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  describe('the drive log', () => {
    it('stores a session’s events in order and reads them back after any seq', async () => {
      const store = await fresh();
      const events = corpusEvents();
      expect(events.length).toBeGreaterThan(20);
      await store.drive.upsert(drivenSession('s1'));
      const outcome = await store.drive.append('s1', events);
      expect(outcome).toEqual({ stored: events.length, repeats: 0, heldSeq: events.length });
      expect(await store.drive.heldSeq('s1')).toBe(events.length);
      expect(await store.drive.events('s1')).toEqual(events);
      expect(await store.drive.events('s1', 10)).toEqual(events.slice(10));
      expect(await store.drive.events('s1', 10, 5)).toEqual(events.slice(10, 15));
      expect(await store.drive.events('s1', events.length)).toEqual([]);
      // Payloads come back as they went, keys in their order.
      const read = await store.drive.events('s1', 0, 3);
      expect(read.map((e) => JSON.stringify(e.payload))).toEqual(
        events.slice(0, 3).map((e) => JSON.stringify(e.payload)),
      );
      expect((await store.drive.get('s1'))?.heldSeq).toBe(events.length);
    });

    it('ignores events it already holds and refuses one past a gap, storing none after it', async () => {
      const store = await fresh();
      const events = corpusEvents().slice(0, 10);
      await store.drive.upsert(drivenSession('s1'));
      expect(await store.drive.append('s1', events.slice(0, 4))).toEqual({
        stored: 4,
        repeats: 0,
        heldSeq: 4,
      });
      // A workstation replaying after a reconnect sends some held events again.
      expect(await store.drive.append('s1', events.slice(2, 6))).toEqual({
        stored: 2,
        repeats: 2,
        heldSeq: 6,
      });
      expect(await store.drive.append('s1', events.slice(0, 6))).toEqual({
        stored: 0,
        repeats: 6,
        heldSeq: 6,
      });
      // 7 is missing: 8 and what follows wait for a backfill.
      expect(await store.drive.append('s1', [events[7]!, events[8]!])).toEqual({
        stored: 0,
        repeats: 0,
        gapAt: 8,
        heldSeq: 6,
      });
      expect(await store.drive.append('s1', events.slice(6))).toEqual({ stored: 4, repeats: 0, heldSeq: 10 });
      expect((await store.drive.events('s1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('keeps the events and the held seq across a restart', async () => {
      let store = await fresh();
      const events = corpusEvents().slice(0, 5);
      await store.drive.upsert(drivenSession('s1'));
      await store.drive.append('s1', events);
      store = await reopen(store);
      expect(await store.drive.heldSeq('s1')).toBe(5);
      expect(await store.drive.events('s1', 2)).toEqual(events.slice(2));
      expect(await store.drive.append('s1', events)).toEqual({ stored: 0, repeats: 5, heldSeq: 5 });
    });

    it('answers an unknown session with nothing, and refuses events for it', async () => {
      const store = await fresh();
      expect(await store.drive.get('nope')).toBeUndefined();
      expect(await store.drive.heldSeq('nope')).toBe(0);
      expect(await store.drive.events('nope')).toEqual([]);
      await expect(store.drive.append('nope', corpusEvents().slice(0, 1))).rejects.toThrow(StoreRefused);
      await expect(store.drive.append('nope', corpusEvents().slice(0, 1))).rejects.toThrow(
        /no driven session nope/,
      );
      expect(await store.drive.events('nope')).toEqual([]);
    });

    it('hands a subscriber the events after its seq, then each new one, in order and once', async () => {
      const store = await fresh();
      const events = corpusEvents();
      await store.drive.upsert(drivenSession('s1'));
      await store.drive.upsert(drivenSession('s2'));
      await store.drive.append('s1', events.slice(0, 3));
      const seen: number[] = [];
      const stop = await store.drive.subscribe('s1', 1, (batch) => seen.push(...batch.map((e) => e.seq)));
      await vi.waitFor(() => expect(seen).toEqual([2, 3]));
      for (let at = 3; at < 12; at += 2) await store.drive.append('s1', events.slice(at - 1, at + 2));
      await store.drive.append('s2', events.slice(0, 5));
      await vi.waitFor(() => expect(seen).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
      stop();
      await store.drive.append('s1', events.slice(13, 15));
      // Another subscriber still hears of the new events; the stopped one does not.
      const later: number[] = [];
      const stopLater = await store.drive.subscribe('s1', 13, (batch) =>
        later.push(...batch.map((e) => e.seq)),
      );
      await vi.waitFor(() => expect(later).toEqual([14, 15]));
      stopLater();
      expect(seen.at(-1)).toBe(13);
    });

    it('keeps each session’s record: its turn, its agent id, closing and opening again', async () => {
      const store = await fresh();
      await store.drive.upsert(drivenSession('a'));
      await store.drive.upsert(drivenSession('b'));
      await store.drive.upsert(drivenSession('c', 'desktop'));
      await store.drive.setNativeSessionId('a', 'native-a');
      await store.drive.setTurnRunning('a', true);
      expect(await store.drive.get('a')).toEqual({
        ...drivenSession('a'),
        nativeSessionId: 'native-a',
        heldSeq: 0,
        turnRunning: true,
        closed: false,
      });
      await store.drive.close('a');
      expect(await store.drive.get('a')).toMatchObject({ closed: true, turnRunning: false });
      expect((await store.drive.ofWorkstation('laptop')).map((r) => r.sessionRef)).toEqual(['b']);
      // Opened again on another workstation: open, moved, and its agent id kept.
      await store.drive.upsert(drivenSession('a', 'desktop'));
      expect(await store.drive.get('a')).toMatchObject({
        workstation: 'desktop',
        nativeSessionId: 'native-a',
        closed: false,
      });
      expect((await store.drive.ofWorkstation('desktop')).map((r) => r.sessionRef).sort()).toEqual([
        'a',
        'c',
      ]);
      expect(await store.drive.ofWorkstation('nowhere')).toEqual([]);
    });
  });

  describe('the chat', () => {
    it('finds a folder’s project again and lists projects newest first with their sessions', async () => {
      const store = await fresh();
      const one = await store.chat.project('/home/someone/one');
      expect(one).toMatchObject({ name: 'one', path: '/home/someone/one' });
      expect(await store.chat.project('/home/someone/one', 'other name')).toEqual(one);
      expect(await store.chat.projectById(one.id)).toEqual(one);
      expect(await store.chat.projectById('nope')).toBeUndefined();
      await new Promise((r) => setTimeout(r, 5));
      const two = await store.chat.project('/home/someone/two', 'Two');
      await store.chat.createSession(two.id, 'claude', null);
      await store.chat.createSession(two.id, 'codex', null);
      const listed = await store.chat.projects();
      expect(listed.map((p) => [p.name, p.sessionCount])).toEqual([
        ['Two', 2],
        ['one', 0],
      ]);
    });

    it('keeps sessions with their titles, agent ids and archive state', async () => {
      const store = await fresh();
      const project = await store.chat.project('/p');
      const a = await store.chat.createSession(project.id, 'claude', null);
      await new Promise((r) => setTimeout(r, 5));
      const b = await store.chat.createSession(project.id, 'codex', 'native-b', 'Fix the parser', 'desktop');
      expect(a).toMatchObject({
        agent: 'claude',
        workstation: 'local',
        title: 'New chat',
        nativeSessionId: null,
      });
      expect(await store.chat.session(b.id)).toEqual(b);
      expect(await store.chat.sessionByNative('codex', 'native-b')).toEqual(b);
      expect(await store.chat.sessionByNative('claude', 'native-b')).toBeUndefined();
      await store.chat.setNativeSessionId(a.id, 'native-a');
      await store.chat.rename(a.id, 'Agent title');
      expect(await store.chat.session(a.id)).toMatchObject({
        nativeSessionId: 'native-a',
        title: 'Agent title',
      });
      expect((await store.chat.session(a.id))?.renamed).toBeUndefined();
      await store.chat.renameByPerson(a.id, 'My title');
      await store.chat.rename(a.id, 'A later agent title');
      expect(await store.chat.session(a.id)).toMatchObject({ title: 'My title', renamed: true });
      await store.chat.archive(b.id, true);
      expect((await store.chat.sessions()).map((s) => s.id)).toEqual([b.id, a.id]);
      expect((await store.chat.sessions(project.id, true)).map((s) => [s.id, s.archived])).toEqual([
        [b.id, true],
      ]);
      expect((await store.chat.sessions(project.id, false)).map((s) => s.id)).toEqual([a.id]);
      await store.chat.archive(b.id, false);
      expect((await store.chat.sessions(undefined, false)).length).toBe(2);
      expect(await store.chat.sessions('no-project')).toEqual([]);
      expect((await store.chat.workstations()).sort()).toEqual(['desktop', 'local']);
      expect(await store.chat.session('nope')).toBeUndefined();
    });

    it('numbers each session’s messages and reads them back whole', async () => {
      const store = await fresh();
      const project = await store.chat.project('/p');
      const s = await store.chat.createSession(project.id, 'claude', null);
      const other = await store.chat.createSession(project.id, 'claude', null);
      const first = await store.chat.addMessage(message(s.id, 'hello'));
      const second = await store.chat.addMessage(
        message(s.id, 'héllo wörld — 👋 \u0000 after a NUL', 'assistant'),
      );
      await store.chat.addMessage(message(other.id, 'elsewhere'));
      expect([first.sequence, second.sequence]).toEqual([1, 2]);
      expect(await store.chat.messages(s.id)).toEqual([first, second]);
      expect((await store.chat.sessions(project.id)).find((x) => x.id === s.id)?.messageCount).toBe(2);
      expect((await store.chat.session(s.id))?.updatedAt).toBe(second.createdAt);
      expect(await store.chat.messages('nope')).toEqual([]);
      await expect(store.chat.addMessage(message('nope', 'lost'))).rejects.toThrow(StoreRefused);
    });

    it('keeps the latest settled permission cards, a card settled again counting as the newest', async () => {
      const store = await fresh();
      const project = await store.chat.project('/p');
      const s = await store.chat.createSession(project.id, 'claude', null);
      const card = (n: number) => ({
        request: { requestId: `r${n}`, toolCall: { title: `run ${n}` } },
        optionId: 'allow',
        by: 'tab',
      });
      await store.chat.settlePermission(s.id, card(1));
      await store.chat.settlePermission(s.id, {
        ...card(2),
        by: 'rule',
        rule: { rule: 'Bash(npm test)', effect: 'allow', source: 'project' },
      });
      await store.chat.settlePermission(s.id, { ...card(1), optionId: 'deny' });
      expect(await store.chat.settledPermissions(s.id)).toEqual([
        { ...card(2), by: 'rule', rule: { rule: 'Bash(npm test)', effect: 'allow', source: 'project' } },
        { ...card(1), optionId: 'deny' },
      ]);
      for (let n = 3; n <= 205; n++) await store.chat.settlePermission(s.id, card(n));
      const kept = await store.chat.settledPermissions(s.id);
      expect(kept.length).toBe(200);
      expect(kept[0]?.request.requestId).toBe('r6');
      expect(kept.at(-1)?.request.requestId).toBe('r205');
      expect(await store.chat.settledPermissions('nope')).toEqual([]);
    });

    it('keeps chosen options in the order last chosen, and forgets a session whole', async () => {
      const store = await fresh();
      const project = await store.chat.project('/p');
      const s = await store.chat.createSession(project.id, 'claude', null);
      await store.chat.setConfigValue(s.id, 'mode', 'plan');
      await store.chat.setConfigValue(s.id, 'model', 'opus');
      await store.chat.setConfigValue(s.id, 'thinking', true);
      await store.chat.setConfigValue(s.id, 'mode', 'default');
      await store.chat.forgetConfigValue(s.id, 'model');
      expect(await store.chat.configValues(s.id)).toEqual([
        { configId: 'thinking', value: true },
        { configId: 'mode', value: 'default' },
      ]);
      await store.chat.addMessage(message(s.id, 'hello'));
      await store.chat.settlePermission(s.id, { request: { requestId: 'r1' }, optionId: 'allow', by: 'tab' });
      await store.chat.deleteSession(s.id);
      expect(await store.chat.session(s.id)).toBeUndefined();
      expect(await store.chat.messages(s.id)).toEqual([]);
      expect(await store.chat.settledPermissions(s.id)).toEqual([]);
      expect(await store.chat.configValues(s.id)).toEqual([]);
      expect(await store.chat.projectById(project.id)).toBeDefined();
    });
  });

  describe('permission rules', () => {
    it('remembers a rule once, by workstation and folder, and forgets it by id', async () => {
      const store = await fresh();
      const first = await store.rules.remember('local', '/p', 'allow', ' Bash(npm test) ');
      expect(first).toMatchObject({
        workstation: 'local',
        projectPath: '/p',
        effect: 'allow',
        rule: 'Bash(npm test)',
      });
      expect(await store.rules.remember('local', '/p', 'allow', 'Bash(npm test)')).toEqual(first);
      const deny = await store.rules.remember('local', '/p', 'deny', 'Bash(rm *)');
      const other = await store.rules.remember('local', '/a', 'allow', 'Read');
      // The same rule in a folder of the same path on another workstation is one of its own.
      const away = await store.rules.remember('box', '/p', 'allow', 'Bash(npm test)');
      expect(away.id).not.toBe(first.id);
      expect((await store.rules.list()).map((r) => r.id)).toEqual([away.id, other.id, first.id, deny.id]);
      expect((await store.rules.list({ projectPath: '/p' })).map((r) => r.id)).toEqual([
        away.id,
        first.id,
        deny.id,
      ]);
      expect((await store.rules.list({ workstation: 'local', projectPath: '/p' })).map((r) => r.id)).toEqual([
        first.id,
        deny.id,
      ]);
      await expect(store.rules.remember('local', '/p', 'allow', 'not a rule (')).rejects.toThrow(RuleRefused);
      expect(await store.rules.revoke(first.id)).toBe(true);
      expect(await store.rules.revoke(first.id)).toBe(false);
      expect((await store.rules.list({ workstation: 'local', projectPath: '/p' })).map((r) => r.id)).toEqual([
        deny.id,
      ]);
    });
  });

  describe('links and marks', () => {
    it('keeps one link per pair of sessions, the latest kind winning, found from either end', async () => {
      const store = await fresh();
      await store.links.add(link('handoff', 'a', 'b', 1_000));
      await store.links.add(link('fork', 'c', 'd', 2_000));
      await store.links.add({ ...link('fork', 'a', 'b', 3_000), via: 'agent' });
      const all = await store.links.read();
      expect(all).toEqual([
        link('fork', 'c', 'd', 2_000),
        { ...link('fork', 'a', 'b', 3_000), via: 'agent' },
      ]);
      expect((await store.links.read({ sid: 'b' })).map((l) => l.from.sid)).toEqual(['a']);
      expect((await store.links.read({ agent: 'codex', sid: 'd' })).map((l) => l.from.sid)).toEqual(['c']);
      expect(await store.links.read({ sid: 'nope' })).toEqual([]);
    });

    it('applies stars and tags, lists the latest marked first, and drops a session left unmarked', async () => {
      const store = await fresh();
      await store.marks.write('claude', 's1', { starred: true, tags: [' zeta ', 'Alpha', 'beta'] }, 1_000);
      const item = { item_uuid: 'u1', item_type: 'assistant', nth: 0 };
      const marked = await store.marks.write(
        'codex',
        's2',
        { starItems: [item, { item_uuid: 'u2' }] },
        2_000,
      );
      expect(marked).toEqual({
        agent: 'codex',
        sid: 's2',
        starred: false,
        tags: [],
        items: [item, { item_uuid: 'u2' }],
        updated_at: 2_000,
      });
      expect((await store.marks.read()).map((m) => [m.sid, m.tags])).toEqual([
        ['s2', []],
        ['s1', ['Alpha', 'beta', 'zeta']],
      ]);
      expect((await store.marks.read({ agent: 'claude' })).map((m) => m.sid)).toEqual(['s1']);
      await store.marks.write('codex', 's2', { unstarItems: [item, { item_uuid: 'u2' }] }, 3_000);
      await store.marks.write('claude', 's1', { starred: false }, 4_000);
      expect(await store.marks.read()).toEqual([
        {
          agent: 'claude',
          sid: 's1',
          starred: false,
          tags: ['Alpha', 'beta', 'zeta'],
          items: [],
          updated_at: 4_000,
        },
      ]);
      await store.marks.write('claude', 's1', { tags: [] }, 5_000);
      expect(await store.marks.read()).toEqual([]);
    });
  });

  describe('tickets', () => {
    it('finds a workstation by its ticket, refuses a second one, and revokes on replace', async () => {
      const store = await fresh();
      const issued = await store.tickets.issue('laptop', { now: new Date('2026-01-02T00:00:00Z') });
      if (!issued.ok) throw new Error(issued.error.message);
      expect(await store.tickets.owner(issued.ticket)).toBe('laptop');
      expect(await store.tickets.owner(`${issued.ticket}x`)).toBeUndefined();
      const again = await store.tickets.issue('laptop');
      expect(again).toMatchObject({ ok: false, error: { _tag: 'TicketExists', name: 'laptop' } });
      expect(await store.tickets.owner(issued.ticket)).toBe('laptop');
      const replaced = await store.tickets.issue('laptop', {
        replace: true,
        now: new Date('2026-01-03T00:00:00Z'),
      });
      if (!replaced.ok) throw new Error(replaced.error.message);
      expect(replaced.replaced).toBe(1);
      expect(await store.tickets.owner(issued.ticket)).toBeUndefined();
      expect(await store.tickets.owner(replaced.ticket)).toBe('laptop');
      await store.tickets.issue('desktop', { now: new Date('2026-01-01T00:00:00Z') });
      const listed = await store.tickets.list();
      expect(listed).toEqual([
        { name: 'desktop', issuedAt: '2026-01-01T00:00:00.000Z' },
        { name: 'laptop', issuedAt: '2026-01-03T00:00:00.000Z' },
      ]);
      expect(await store.tickets.revoke('laptop')).toBe(1);
      expect(await store.tickets.revoke('laptop')).toBe(0);
      expect(await store.tickets.owner(replaced.ticket)).toBeUndefined();
      await expect(store.tickets.issue('no spaces')).rejects.toThrow(/not a workstation name/);
    });
  });

  describe('people and workstations', () => {
    it('keeps a user’s token as its digest only, and finds the user by the token alone', async () => {
      const store = await fresh();
      const { user, token } = await store.users.add('ada', 'admin', 1_000);
      expect(user).toEqual({ name: 'ada', role: 'admin', createdAt: 1_000 });
      expect(Buffer.from(token, 'base64url').length).toBe(32);
      expect(await store.users.byToken(token)).toEqual(user);
      expect(await store.users.byToken(token.slice(0, -1))).toBeUndefined();
      expect(await store.users.byToken('')).toBeUndefined();
      const stored = await harness.storedUsers(store);
      const digest = createHash('sha256').update(token).digest();
      expect(stored).not.toContain(token);
      expect(stored.includes(digest.toString('hex')) || stored.includes(digest.toString('latin1'))).toBe(
        true,
      );
      // Still found after a restart, still by its digest.
      const again = await reopen(store);
      expect(await again.users.byToken(token)).toEqual(user);
    });

    it('refuses a name taken, a bad name or role, and a renewed token replaces the old', async () => {
      const store = await fresh();
      const { token } = await store.users.add('ada', 'admin');
      await store.users.add('bob', 'member', 2_000);
      await expect(store.users.add('ada', 'member')).rejects.toThrow(/already a user named ada/);
      await expect(store.users.add('a b', 'member')).rejects.toThrow(/not a user name/);
      await expect(store.users.add('carl', 'owner' as never)).rejects.toThrow(/not a role/);
      const renewed = await store.users.renewToken('ada');
      expect(renewed).toBeDefined();
      expect(await store.users.byToken(token)).toBeUndefined();
      expect((await store.users.byToken(renewed!))?.name).toBe('ada');
      expect(await store.users.renewToken('nobody')).toBeUndefined();
      expect((await store.users.list()).map((u) => [u.name, u.role])).toEqual([
        ['ada', 'admin'],
        ['bob', 'member'],
      ]);
      expect(await store.users.get('bob')).toEqual({ name: 'bob', role: 'member', createdAt: 2_000 });
      expect(await store.users.get('nobody')).toBeUndefined();
    });

    it('gives each workstation one owner and a visibility, and keeps a user who still owns one', async () => {
      const store = await fresh();
      await store.users.add('ada', 'admin');
      await store.users.add('bob', 'member');
      const laptop = await store.workstations.add('laptop', 'bob', 'private', 1_000);
      expect(laptop).toEqual({ name: 'laptop', owner: 'bob', visibility: 'private', createdAt: 1_000 });
      await store.workstations.add('ci-runner', 'ada', 'shared');
      await expect(store.workstations.add('laptop', 'ada', 'shared')).rejects.toThrow(
        /already a workstation/,
      );
      await expect(store.workstations.add('vm', 'nobody', 'shared')).rejects.toThrow(/no user named nobody/);
      await expect(store.workstations.add('vm', 'ada', 'public' as never)).rejects.toThrow(
        /not a visibility/,
      );
      expect((await store.workstations.list()).map((w) => w.name)).toEqual(['ci-runner', 'laptop']);
      expect((await store.workstations.list({ owner: 'bob' })).map((w) => w.name)).toEqual(['laptop']);
      expect(await store.workstations.setVisibility('laptop', 'shared')).toBe(true);
      expect(await store.workstations.setVisibility('nope', 'shared')).toBe(false);
      expect((await store.workstations.get('laptop'))?.visibility).toBe('shared');
      expect(await store.workstations.get('nope')).toBeUndefined();
      await expect(store.users.remove('bob')).rejects.toThrow(/bob still owns workstations: laptop/);
      expect(await store.workstations.remove('laptop')).toBe(true);
      expect(await store.workstations.remove('laptop')).toBe(false);
      expect(await store.users.remove('bob')).toBe(true);
      expect(await store.users.remove('bob')).toBe(false);
    });
  });

  describe('synced sessions', () => {
    const synced = (sid: string, stamp: string, title: string): SyncedSession => ({
      agent: 'claude-code',
      sid,
      stamp,
      head: {
        agent: 'claude-code',
        sid,
        path: `/home/someone/.claude/projects/-p/${sid}.jsonl`,
        size: 1234,
        active: false,
        title,
        last_activity_at: 1_700_000_000_000,
        input_tokens: 42,
      },
    });

    it('keeps each workstation’s sessions apart, replaces a changed one and forgets a removed one', async () => {
      let store = await fresh();
      // Transcript text as agents write it: a NUL, a right-to-left override, a zero-width joiner.
      const hostile = 'invoice\u202egnp.exe \u0000 a\u200db';
      await store.synced.put('laptop', [synced('s1', 'v1', hostile), synced('s2', 'v1', 'two')], 5_000);
      await store.synced.put('ci-runner', [synced('s1', 'other', 'the runner’s s1')], 6_000);
      const byStamp = (rows: { sid: string; stamp: string }[]) =>
        rows.map((r) => `${r.sid}@${r.stamp}`).sort();
      expect(byStamp(await store.synced.stamps('laptop'))).toEqual(['s1@v1', 's2@v1']);
      expect(byStamp(await store.synced.stamps('ci-runner'))).toEqual(['s1@other']);
      expect(await store.synced.stamps('nowhere')).toEqual([]);

      await store.synced.put('laptop', [synced('s2', 'v2', 'two, later')], 7_000);
      store = await reopen(store);
      const laptop = (await store.synced.list(['laptop'])).sort((a, b) => a.sid.localeCompare(b.sid));
      expect(laptop.map((r) => [r.sid, r.stamp, r.head.title, r.syncedAt])).toEqual([
        ['s1', 'v1', hostile, 5_000],
        ['s2', 'v2', 'two, later', 7_000],
      ]);
      expect(laptop[0]?.head).toEqual(synced('s1', 'v1', hostile).head);
      expect((await store.synced.list()).length).toBe(3);
      expect((await store.synced.find('s1')).map((r) => r.workstation).sort()).toEqual([
        'ci-runner',
        'laptop',
      ]);
      expect(await store.synced.find('s1', 'codex')).toEqual([]);
      expect((await store.synced.find('s2', 'claude-code')).map((r) => r.stamp)).toEqual(['v2']);
      expect(await store.synced.list([])).toEqual([]);

      expect(
        await store.synced.remove('laptop', [
          { agent: 'claude-code', sid: 's1' },
          { agent: 'claude-code', sid: 'gone' },
        ]),
      ).toBe(1);
      expect(byStamp(await store.synced.stamps('laptop'))).toEqual(['s2@v2']);
      // The other machine's session of the same id is its own.
      expect(byStamp(await store.synced.stamps('ci-runner'))).toEqual(['s1@other']);
    });

    it('tells which workstations a server process holds now, and forgets a process that went quiet', async () => {
      let store = await fresh();
      expect(await store.synced.presence(0, 30_000)).toEqual([]);
      const byName = async (now: number) =>
        (await store.synced.presence(now, 30_000))
          .map((p) => [p.workstation, p.online, p.heardAt])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      // Process A holds the laptop; process B held the VM and said it let go.
      await store.synced.heard('laptop', 'process-a', true, 100_000);
      await store.synced.heard('vm', 'process-b', true, 100_000);
      await store.synced.heard('vm', 'process-b', false, 110_000);
      expect(await byName(120_000)).toEqual([
        ['laptop', true, 100_000],
        ['vm', false, 110_000],
      ]);
      // Nobody says the laptop is still there: once the word is old, it is not.
      expect(await byName(130_001)).toEqual([
        ['laptop', false, 100_000],
        ['vm', false, 110_000],
      ]);
      // It comes back through process B while A's last word stands, then leaves B: A still says it
      // holds a connection, so it stays online until that word too is old.
      await store.synced.heard('laptop', 'process-a', true, 140_000);
      await store.synced.heard('laptop', 'process-b', true, 141_000);
      await store.synced.heard('laptop', 'process-b', false, 142_000);
      store = await reopen(store);
      expect(await byName(150_000)).toEqual([
        ['laptop', true, 142_000],
        ['vm', false, 110_000],
      ]);
      // A's next word forgets B's row that said it let go; what B said last no longer dates it.
      await store.synced.heard('laptop', 'process-a', true, 160_000);
      expect(await byName(170_000)).toEqual([
        ['laptop', true, 160_000],
        ['vm', false, 110_000],
      ]);
    });

    it('pages a list latest first, filtered in the store, with the count of all that pass', async () => {
      const store = await fresh();
      const at = (sid: string, lastActivity: number, extra: Partial<SyncedSession['head']> = {}) => {
        const s = synced(sid, 'v1', sid);
        return { ...s, head: { ...s.head, last_activity_at: lastActivity, ...extra } };
      };
      await store.synced.put(
        'laptop',
        [
          at('old', 1_000, { cwd: '/work/cairn' }),
          at('new', 3_000, { cwd: '/work/other', active: true }),
          at('mid', 2_000, { cwd: '/work/cairn/web' }),
        ],
        10_000,
      );
      await store.synced.put('vm', [at('vm-1', 2_500)], 10_000);
      expect((await store.synced.workstationsHeld()).sort()).toEqual(['laptop', 'vm']);
      const page = async (q: Partial<Parameters<ServerStore['synced']['page']>[0]>) => {
        const { rows, total } = await store.synced.page({
          workstations: ['laptop', 'vm'],
          now: 10_500,
          activeMs: 60_000,
          limit: 10,
          ...q,
        });
        return [rows.map((r) => r.sid), total];
      };
      expect(await page({})).toEqual([['new', 'vm-1', 'mid', 'old'], 4]);
      expect(await page({ limit: 2 })).toEqual([['new', 'vm-1'], 4]);
      expect(await page({ workstations: ['laptop'] })).toEqual([['new', 'mid', 'old'], 3]);
      expect(await page({ workstations: [] })).toEqual([[], 0]);
      expect(await page({ cwd: 'cairn' })).toEqual([['mid', 'old'], 2]);
      expect(await page({ sinceAt: 2_000 })).toEqual([['new', 'vm-1', 'mid'], 3]);
      expect(await page({ agents: ['codex'] })).toEqual([[], 0]);
      expect(await page({ active: true })).toEqual([['new'], 1]);
      // Its workstation's word on it is too old: no longer active.
      expect(await page({ active: true, now: 80_000 })).toEqual([[], 0]);
      expect(await page({ active: false, now: 80_000 })).toEqual([['new', 'vm-1', 'mid', 'old'], 4]);
    });

    it('keeps a session’s search documents and finds them by the server’s query rules', async () => {
      const store = await fresh();
      const doc = (
        key: string,
        text: string,
        target: SyncedDoc['target'] = 'prompt',
        at = 5_000,
      ): SyncedDoc => ({
        key,
        item_uuid: `u-${key}`,
        item_type: target === 'prompt' ? 'message:user:in' : 'tool:Bash',
        target,
        at,
        text,
      });
      await store.synced.put('laptop', [synced('s1', 'v1', 'one'), synced('s2', 'v1', 'two')]);
      await store.synced.put('vm', [synced('s1', 'v1', 'vm one')]);
      await expect(
        store.synced.putDocs(
          'laptop',
          { agent: 'claude-code', sid: 'nope' },
          { replace: true, low: 1, high: 1, docs: [] },
        ),
      ).rejects.toThrow(/no synced session nope of laptop/);
      expect(
        await store.synced.putDocs(
          'laptop',
          { agent: 'claude-code', sid: 's1' },
          {
            replace: true,
            low: 10,
            high: 12,
            docs: [
              doc('a', 'the deploy script failed on staging'),
              // A NUL and the snippets' own marks, as hostile text may hold them.
              doc('b', 'npm run deploy \u0000 --force \u0002fake\u0003', 'tool_input'),
              doc('c', 'Rotate the staging credentials', 'prompt', 9_000),
            ],
          },
        ),
      ).toEqual({ count: 3, low: 10, high: 12 });
      await store.synced.putDocs(
        'laptop',
        { agent: 'claude-code', sid: 's2' },
        { replace: true, low: 1, high: 1, docs: [doc('a', 'deploy the docs site')] },
      );
      await store.synced.putDocs(
        'vm',
        { agent: 'claude-code', sid: 's1' },
        { replace: true, low: 1, high: 1, docs: [doc('a', 'deploy from the vm')] },
      );
      const find = async (
        query: string,
        more: Partial<Parameters<ServerStore['synced']['search']>[0]> = {},
      ) =>
        (await store.synced.search({ query, workstations: ['laptop'], limit: 10, ...more })).rows
          .map((r) => `${r.sid}/${r.itemUuid}`)
          .sort();
      expect(await find('deploy')).toEqual(['s1/u-a', 's1/u-b', 's2/u-a']);
      expect(await find('deploy', { workstations: ['laptop', 'vm'] })).toHaveLength(4);
      expect(await find('deploy -staging')).toEqual(['s1/u-b', 's2/u-a']);
      expect(await find('"deploy script"')).toEqual(['s1/u-a']);
      expect(await find('"script deploy"')).toEqual([]);
      expect(await find('STAG*')).toEqual(['s1/u-a', 's1/u-c']);
      expect(await find('deploy', { targets: ['tool_input'] })).toEqual(['s1/u-b']);
      expect(await find('deploy', { sid: 's2' })).toEqual(['s2/u-a']);
      expect(await find('staging', { sinceAt: 6_000 })).toEqual(['s1/u-c']);
      expect(await find('fake')).toEqual(['s1/u-b']);
      const [hit] = (await store.synced.search({ query: 'credentials', workstations: ['laptop'], limit: 1 }))
        .rows;
      expect(hit).toMatchObject({
        workstation: 'laptop',
        agent: 'claude-code',
        sid: 's1',
        target: 'prompt',
        at: 9_000,
      });
      expect(hit?.snippet).toContain(`${SNIPPET_MARK_START}credentials${SNIPPET_MARK_END}`);
      expect(hit?.head.title).toBe('one');
      // The marks in the text itself are not marks.
      const [forced] = (await store.synced.search({ query: 'fake', workstations: ['laptop'], limit: 1 }))
        .rows;
      expect(
        await store.synced.search({ query: 'deploy', workstations: ['laptop'], limit: 1, count: true }),
      ).toMatchObject({ total: 3 });
      expect(forced?.snippet.split(SNIPPET_MARK_START)).toHaveLength(2);
      expect((await store.synced.stamps('laptop')).map((r) => [r.sid, r.docs?.count]).sort()).toEqual([
        ['s1', 3],
        ['s2', 1],
      ]);
      // Added to, a key held is replaced; replaced, the old ones go; removed, nothing is found.
      expect(
        await store.synced.putDocs(
          'laptop',
          { agent: 'claude-code', sid: 's1' },
          { replace: false, low: 9, high: 12, docs: [doc('c', 'rotate the keys'), doc('d', 'deploy again')] },
        ),
      ).toEqual({ count: 4, low: 9, high: 12 });
      expect(await find('credentials')).toEqual([]);
      await store.synced.putDocs(
        'laptop',
        { agent: 'claude-code', sid: 's1' },
        { replace: true, low: 20, high: 20, docs: [doc('z', 'nothing else')] },
      );
      expect(await find('deploy')).toEqual(['s2/u-a']);
      await store.synced.remove('laptop', [{ agent: 'claude-code', sid: 's2' }]);
      expect(await find('deploy')).toEqual([]);
      expect(await find('nothing')).toEqual(['s1/u-z']);
    });

    it('tells a listener which sessions of which workstation changed, and nothing for a change of none', async () => {
      const store = await fresh();
      const heard: unknown[] = [];
      const stop = await store.synced.onChange((change) => heard.push(change));
      const s1 = { workstation: 'laptop', sessions: [{ agent: 'claude-code', sid: 's1' }] };
      await store.synced.put('laptop', [synced('s1', 'v1', 'one')]);
      await vi.waitFor(() => expect(heard).toEqual([s1]));
      expect(await store.synced.remove('laptop', [{ agent: 'claude-code', sid: 'never' }])).toBe(0);
      await store.synced.put('vm', []);
      await store.synced.remove('laptop', [{ agent: 'claude-code', sid: 's1' }]);
      await vi.waitFor(() => expect(heard).toEqual([s1, s1]));
      stop();
      await store.synced.put('vm', [synced('s2', 'v1', 'two')]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([s1, s1]);
    });

    it('names the sessions of a notice while they fit in one, and the workstation alone past that', () => {
      const few = [{ agent: 'codex', sid: 'r1' }];
      expect(readSyncedNotice(syncedNotice('vm', few))).toEqual({ workstation: 'vm', sessions: few });
      const many = Array.from({ length: 500 }, (_, i) => ({
        agent: 'claude-code',
        sid: `session-${i}-${'x'.repeat(40)}`,
      }));
      expect(readSyncedNotice(syncedNotice('vm', many))).toEqual({ workstation: 'vm' });
      expect(syncedNotice('vm', many).length).toBeLessThan(8_000);
      expect(readSyncedNotice('not json')).toBeUndefined();
    });
  });
}
