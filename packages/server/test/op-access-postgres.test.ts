// Who may do what over the browser wire on a team's server (state in PostgreSQL): every op of the
// ops socket, asked as a member and as an admin, and every message type of the chat socket, asked by
// a member about another member's workstation. The sessions the server reads from its own disk are an
// admin's alone (a member lists none and is refused one by name); a driven session follows its
// workstation. A new op or chat message type without a row here fails the coverage checks.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHAT_CLIENT_MESSAGE_FIXTURES,
  CLIENT_MESSAGE_MEMBERS,
  OP_FIXTURES,
  type OpName,
} from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { ADMIN_REFUSAL, CATALOG_REFUSAL, OP_ACCESS, workstationRefusal } from '../src/gate/op-access.js';
import type { RunningServer } from '../src/index.js';
import { OP_HANDLERS } from '../src/ops/index.js';
import type { SessionEntry } from '../src/reader/catalog.js';
import { LinksStore, linksPath } from '../src/storage/links-store.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { Client, corpusEnv, type Frame, serve, tempDir } from './helpers.js';
import { closeAll, openTab } from './support/chat.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';
import { apiCall, connectWorkstation as connectTeamWorkstation } from './support/team-server.js';

let cluster: PostgresCluster;
let store: PostgresServerStore;
let server: RunningServer;
const tokens: Record<'ada' | 'olga' | 'mike', string> = { ada: '', olga: '', mike: '' };
/** A session of the corpus, on the server's own disk. */
let entry: SessionEntry;
/** A word of its first prompt, which search finds. */
let word: string;
/** The chat session olga drives on her workstation, and the id its agent gave it. */
let drivenChat: string;
let drivenSid: string;
/** The folder of that chat's project. */
let olgaFolder: string;
const lasting: (() => Promise<void> | void)[] = [];

/** A workstation in this process, connected to the server over the real `/agent` endpoint; its agent
 * also answers under the name of an agent whose sessions the server holds on its own disk. */
const connectWorkstation = async (name: string, ticket: string): Promise<void> => {
  lasting.push(
    await connectTeamWorkstation(server, name, ticket, {
      agents: { wire: 'Wire', 'claude-code': 'Claude Code' },
    }),
  );
};

const api = (token: string, method: string, path: string, body?: unknown) =>
  apiCall(server, token, method, path, body);

/** An op's request from the protocol's own sample, naming the corpus session. */
function requestOf(op: OpName): Record<string, unknown> {
  const {
    request_id: _id,
    op: _op,
    ...args
  } = structuredClone(OP_FIXTURES[op].request) as Record<string, unknown>;
  if ('sid' in args) args.sid = entry.sid;
  if ('agent' in args) args.agent = entry.agent;
  delete args.agent_id;
  delete args.since_at;
  delete args.until_at;
  delete args.cwd;
  delete args.agents;
  delete args.targets;
  if ('preset' in args) args.preset = 'file';
  if (op === 'topic_subscribe' || op === 'topic_unsubscribe') {
    args.topic = `session:${entry.agent}:${entry.sid}`;
    delete args.after_seq;
  }
  if (op === 'session_search') {
    args.query = word;
    delete args.sid;
  }
  if (op === 'transcript_read') {
    delete args.before;
    args.after = 0;
  }
  if (op === 'usage_read') {
    for (const key of ['since', 'until', 'project', 'model', 'agent']) delete args[key];
    args.timezone = 'UTC';
  }
  if (op === 'session_links_read' || op === 'session_marks_read') {
    delete args.sid;
    delete args.agent;
  }
  return args;
}

type Check = (reply: Frame) => void;

const refused =
  (message: string): Check =>
  (reply) =>
    expect(reply).toMatchObject({ ok: false, error: { code: 'forbidden', message } });
const answered: Check = (reply) => expect(reply.ok, JSON.stringify(reply).slice(0, 400)).toBe(true);
const answeredWith =
  (check: (reply: Frame) => void): Check =>
  (reply) => {
    answered(reply);
    check(reply);
  };
/** The op ran for the admin and gave its own answer for a session it does not drive. */
const ranButUnsupported: Check = (reply) =>
  expect(reply).toMatchObject({ ok: false, error: { code: 'unsupported' } });

/** What each kind of rule gives a member, for the rows' names. */
const FOR_A_MEMBER: Record<(typeof OP_ACCESS)[OpName]['kind'], string> = {
  open: 'answered',
  admin: 'refused',
  'catalog-list': 'answered as if the server had no sessions',
  'catalog-session': 'refused the server’s session',
  'driven-or-catalog': 'refused the server’s session',
  topic: 'refused the server’s session',
};

/** Every op: what a member and an admin get for the corpus session (or none). */
const ROWS: { readonly [Op in OpName]: { member: Check; admin: Check | 'last' } } = {
  hello: { member: answered, admin: answered },
  ping: {
    member: answeredWith((r) => expect(r.index).toEqual({ state: 'ready', sessions: 0 })),
    admin: answeredWith((r) => expect((r.index as { sessions: number }).sessions).toBeGreaterThan(0)),
  },
  // Stopping the server is the admin's; the admin's own call ends the file.
  shutdown: { member: refused(ADMIN_REFUSAL), admin: 'last' },
  topic_subscribe: { member: refused(CATALOG_REFUSAL), admin: answered },
  topic_unsubscribe: {
    member: answeredWith((r) => expect(r.was_subscribed).toBe(false)),
    admin: answered,
  },
  session_list: {
    member: answeredWith((r) => expect(r).toMatchObject({ sessions: [], total: 0 })),
    admin: answeredWith((r) => {
      expect(r.total).toBeGreaterThan(0);
      expect((r.sessions as { sid: string }[]).some((s) => s.sid === entry.sid)).toBe(true);
    }),
  },
  session_search: {
    member: answeredWith((r) => expect(r.hits).toEqual([])),
    admin: answeredWith((r) => expect((r.hits as unknown[]).length).toBeGreaterThan(0)),
  },
  session_marks_read: {
    member: answeredWith((r) => expect(r.marks).toEqual([])),
    admin: answeredWith((r) =>
      expect(r.marks).toEqual([expect.objectContaining({ sid: entry.sid, starred: true })]),
    ),
  },
  session_marks_write: { member: refused(CATALOG_REFUSAL), admin: answered },
  session_links_read: {
    member: answeredWith((r) => expect(r.links).toEqual([])),
    admin: answeredWith((r) => expect((r.links as unknown[]).length).toBe(1)),
  },
  session_handoff_preview: { member: refused(CATALOG_REFUSAL), admin: answered },
  usage_read: {
    member: answeredWith((r) => {
      expect(r.rows).toEqual([]);
      expect((r.totals as { totalTokens: number }).totalTokens).toBe(0);
    }),
    admin: answeredWith((r) => {
      expect((r.rows as unknown[]).length).toBeGreaterThan(0);
      expect((r.totals as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    }),
  },
  session_summary_read: {
    member: refused(CATALOG_REFUSAL),
    admin: answeredWith((r) => expect(r.sid).toBe(entry.sid)),
  },
  transcript_read: {
    member: refused(CATALOG_REFUSAL),
    admin: answeredWith((r) => expect((r.lines as unknown[]).length).toBeGreaterThan(0)),
  },
  transcript_items_read: {
    member: refused(CATALOG_REFUSAL),
    admin: answeredWith((r) => expect((r.items as unknown[]).length).toBeGreaterThan(0)),
  },
  session_dump_write: { member: refused(CATALOG_REFUSAL), admin: answered },
  dump_presets_read: { member: answered, admin: answered },
  session_kill: { member: refused(CATALOG_REFUSAL), admin: ranButUnsupported },
  session_env_read: {
    member: refused(CATALOG_REFUSAL),
    admin: answeredWith((r) => expect(r).toMatchObject({ sid: entry.sid, driven: false })),
  },
  session_fork_origin: { member: refused(CATALOG_REFUSAL), admin: ranButUnsupported },
  session_last_live_remove: { member: refused(CATALOG_REFUSAL), admin: answered },
};

beforeAll(async () => {
  cluster = startPostgresCluster();
  const url = cluster.createDatabase('access');
  store = await PostgresServerStore.open({ connectionString: url, maxConnections: 2 });
  tokens.ada = (await store.users.add('ada', 'admin')).token;
  tokens.olga = (await store.users.add('olga', 'member')).token;
  tokens.mike = (await store.users.add('mike', 'member')).token;
  await store.workstations.add('olga-box', 'olga', 'shared');
  await store.workstations.add('mike-box', 'mike', 'private');
  const issued = await store.tickets.issue('olga-box');
  const mikes = await store.tickets.issue('mike-box');
  if (!issued.ok || !mikes.ok) throw new Error('no ticket');
  const cairnHome = tempDir('cairn-access-state-');
  // A link the server's own hand-offs would have written.
  const links = new LinksStore(linksPath(cairnHome));
  links.add({
    kind: 'handoff',
    via: 'handoff',
    from: { agent: 'codex', sid: '019c8a4d-8f45-7010-8b5d-7fad920aa6f9' },
    to: { agent: 'codex', sid: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9' },
    created_at: 1_770_000_000_000,
  });
  links.close();
  server = await serve(
    { ...corpusEnv(), PATH: process.env.PATH ?? '' },
    { database: url, localWorkstation: false, cairnHome },
  );
  lasting.push(() => server.close());
  await server.catalog.listed();
  // A Claude Code session with a first prompt (the index keeps it): there is a word of it to search for.
  const claude = server.catalog.all().filter((e) => e.agent === 'claude-code');
  const texts = server.catalog.headTexts(claude);
  const firstPrompt = (e: SessionEntry) => texts.get(e.key)?.firstPrompt ?? '';
  entry = claude.find((e) => /[a-z]{5,}/i.test(firstPrompt(e)))!;
  word = /[a-z]{5,}/i.exec(firstPrompt(entry))![0];
  const admin = await Client.open(server);
  expect(
    await admin.request('session_marks_write', { sid: entry.sid, agent: entry.agent, starred: true }),
  ).toMatchObject({ ok: true });
  await admin.close();

  // Olga's workstation, and a chat she drives on it, answered once so its agent has named it.
  await connectWorkstation('olga-box', issued.ticket);
  await connectWorkstation('mike-box', mikes.ticket);
  const folder = join(tempDir('cairn-access-project-'), 'p');
  mkdirSync(folder);
  olgaFolder = folder;
  const project = await api(tokens.olga, 'POST', '/api/projects', { path: folder, workstation: 'olga-box' });
  const created = await api(tokens.olga, 'POST', '/api/sessions', {
    projectId: project.body.project.id,
    agent: 'wire',
    workstation: 'olga-box',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const tab = await openTab(
    `ws://127.0.0.1:${server.port}/chat?session=${created.body.session.id}&token=${tokens.olga}`,
  );
  await tab.ready();
  tab.send({ type: 'user_message', content: 'hello' });
  await tab.turnsEnded(1);
  tab.ws.close();
  const listed = await api(tokens.olga, 'GET', '/api/sessions');
  drivenChat = created.body.session.id;
  drivenSid = listed.body.sessions.find(
    (s: { id: string }) => s.id === created.body.session.id,
  ).nativeSessionId;
  expect(drivenSid).toEqual(expect.any(String));
}, 180_000);

afterAll(async () => {
  await closeAll();
  for (const stop of lasting.splice(0).reverse()) await stop();
  await store?.close();
  await cluster?.stop();
});

describe.skipIf(!corpus)('every op of the ops socket', () => {
  it('has a row here and a rule in the access table', () => {
    const ops = Object.keys(OP_HANDLERS).sort();
    expect(Object.keys(ROWS).sort()).toEqual(ops);
    expect(Object.keys(OP_ACCESS).sort()).toEqual(ops);
  });

  for (const op of Object.keys(ROWS) as OpName[]) {
    it(`${op} (${OP_ACCESS[op].kind}): a member is ${FOR_A_MEMBER[OP_ACCESS[op].kind]}, an admin is answered`, async () => {
      const row = ROWS[op];
      const ask = async (token: string) => {
        const client = await Client.open(server, { token, hello: op !== 'hello' });
        const reply = await client.request(op, requestOf(op));
        await client.close();
        return reply;
      };
      row.member(await ask(tokens.mike));
      if (row.admin === 'last') return;
      // The admin with their own token and with the daemon's.
      row.admin(await ask(tokens.ada));
      row.admin(await ask(server.token));
    });
  }

  it('a member’s subscription to the sessions topic is taken (what it carries: sync-team.test.ts)', async () => {
    const client = await Client.open(server, { token: tokens.mike });
    expect(await client.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    expect(await client.request('topic_unsubscribe', { topic: 'sessions' })).toMatchObject({
      ok: true,
      was_subscribed: true,
    });
    await client.close();
  });

  it('a member is refused a session by name whether or not it exists, so a refusal tells nothing', async () => {
    const client = await Client.open(server, { token: tokens.mike });
    for (const sid of [entry.sid, '00000000-0000-4000-8000-000000000000'])
      expect(await client.request('session_summary_read', { sid })).toEqual({
        ok: false,
        request_id: expect.any(String),
        error: { code: 'forbidden', message: CATALOG_REFUSAL, field: '/sid' },
      });
    await client.close();
  });

  it('a driven session follows its workstation: its owner and an admin read and may end it, another member neither', async () => {
    const env = async (token: string) => {
      const client = await Client.open(server, { token });
      const reply = await client.request('session_env_read', { sid: drivenSid });
      await client.close();
      return reply;
    };
    // Shared: every member reads it.
    for (const token of [tokens.olga, tokens.mike, tokens.ada])
      expect(await env(token)).toMatchObject({ ok: true, driven: true, workstation: 'olga-box' });
    expect(await store.workstations.setVisibility('olga-box', 'private')).toBe(true);
    try {
      for (const token of [tokens.olga, tokens.ada, server.token])
        expect(await env(token)).toMatchObject({ ok: true, driven: true, workstation: 'olga-box' });
      refused(workstationRefusal('olga-box'))(await env(tokens.mike));
      const client = await Client.open(server, { token: tokens.mike });
      refused(workstationRefusal('olga-box'))(await client.request('session_kill', { sid: drivenSid }));
      await client.close();
      expect(await store.drive.ofWorkstation('olga-box')).toEqual([
        expect.objectContaining({ nativeSessionId: drivenSid, closed: false }),
      ]);
    } finally {
      await store.workstations.setVisibility('olga-box', 'shared');
    }
  });

  it('a member cannot fetch a dump of the server’s sessions over HTTP, nor hand one off into a chat', async () => {
    const admin = await Client.open(server, { token: tokens.ada });
    const dump = await admin.request('session_dump_write', {
      sid: entry.sid,
      agent: entry.agent,
      preset: 'file',
    });
    await admin.close();
    const name = String(dump.path).split(/[\\/]/).at(-1)!;
    expect((await api(tokens.ada, 'GET', `/dumps/${name}`)).status).toBe(200);
    expect(await api(tokens.mike, 'GET', `/dumps/${name}`)).toEqual({
      status: 403,
      body: `${CATALOG_REFUSAL}\n`,
    });
    const handoff = await api(tokens.mike, 'POST', '/api/sessions/handoff', {
      workstation: 'olga-box',
      agent: 'wire',
      handoff: { sid: entry.sid, agent: entry.agent },
    });
    expect(handoff).toEqual({ status: 403, body: { error: CATALOG_REFUSAL } });
  });

  it('a member continuing a session on their machine gets no past from the server’s own copy of it', async () => {
    const folder = tempDir('cairn-access-continue-');
    const continued = async (token: string) => {
      const reply = await api(token, 'POST', '/api/sessions/continue', {
        workstation: 'olga-box',
        agent: 'claude-code',
        nativeSessionId: entry.sid,
        cwd: folder,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.session as { id: string; title: string; messageCount: number };
    };
    const mine = await continued(tokens.mike);
    expect(mine).toMatchObject({ title: 'Continued session', messageCount: 0 });
    // The same session asked again is that chat, for whoever may use its workstation.
    expect((await continued(tokens.olga)).id).toBe(mine.id);
    await api(tokens.mike, 'POST', '/api/sessions/delete', { sessionId: mine.id });
    // An admin's chat of it holds its past, read from the server's disk.
    const admins = await continued(tokens.ada);
    expect(admins.messageCount).toBeGreaterThan(0);
    // Once its workstation is private, another member is not handed that chat, even asking from
    // a machine of his own.
    expect(await store.workstations.setVisibility('olga-box', 'private')).toBe(true);
    try {
      const again = await api(tokens.mike, 'POST', '/api/sessions/continue', {
        workstation: 'mike-box',
        agent: 'claude-code',
        nativeSessionId: entry.sid,
        cwd: folder,
      });
      expect(again).toEqual({ status: 403, body: { error: workstationRefusal('olga-box') } });
    } finally {
      await store.workstations.setVisibility('olga-box', 'shared');
    }
  });
});

describe('the chat’s permission rules', () => {
  it('are kept and revoked by an admin alone, and read by a member only for workstations they may use', async () => {
    const kept = await api(tokens.ada, 'POST', '/api/permission-rules', {
      workstation: 'olga-box',
      projectPath: olgaFolder,
      rule: 'Bash(npm test*)',
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    const id = kept.body.rule.id as string;
    const ids = async (token: string) =>
      ((await api(token, 'GET', '/api/permission-rules')).body.rules as { id: string }[]).map((r) => r.id);
    const refusal = {
      error: 'forbidden: on a team’s server only an admin keeps or revokes permission rules',
    };
    expect(
      await api(tokens.mike, 'POST', '/api/permission-rules', { projectPath: olgaFolder, rule: 'Write' }),
    ).toEqual({
      status: 403,
      body: refusal,
    });
    expect(await api(tokens.olga, 'DELETE', `/api/permission-rules?id=${id}`)).toEqual({
      status: 403,
      body: refusal,
    });
    expect(await ids(tokens.mike)).toContain(id);
    expect(await store.workstations.setVisibility('olga-box', 'private')).toBe(true);
    try {
      expect(await ids(tokens.mike)).not.toContain(id);
      expect(await ids(tokens.olga)).toContain(id);
      expect(await ids(tokens.ada)).toContain(id);
    } finally {
      await store.workstations.setVisibility('olga-box', 'shared');
    }
    expect((await api(tokens.ada, 'DELETE', `/api/permission-rules?id=${id}`)).status).toBe(200);
  });
});

describe('every message type of the chat socket', () => {
  const types = CLIENT_MESSAGE_MEMBERS.map((m) => m.properties.type.const as string);

  it('has a row here', () => {
    expect(Object.keys(CHAT_CLIENT_MESSAGE_FIXTURES).sort()).toEqual([...types].sort());
  });

  it('is refused on an open tab of another member’s workstation once it is no longer shared', async () => {
    const tab = await openTab(
      `ws://127.0.0.1:${server.port}/chat?session=${drivenChat}&token=${tokens.mike}`,
    );
    await tab.ready();
    expect(await store.workstations.setVisibility('olga-box', 'private')).toBe(true);
    try {
      for (const [type, sample] of Object.entries(CHAT_CLIENT_MESSAGE_FIXTURES)) {
        const errors = tab.count('error');
        tab.send(sample as { type: string });
        await tab.until(() => tab.count('error') > errors, `the refusal of ${type}`);
        expect(tab.events.filter((e) => e.type === 'error').at(-1), type).toEqual({
          type: 'error',
          message: workstationRefusal('olga-box'),
        });
      }
      expect(tab.count('agent_end')).toBe(0);
    } finally {
      tab.ws.close();
      await store.workstations.setVisibility('olga-box', 'shared');
    }
  }, 60_000);
});

describe.skipIf(!corpus)('stopping the server', () => {
  it('is refused to a member above and taken from an admin', async () => {
    const client = await Client.open(server, { token: tokens.ada });
    expect(await client.request('shutdown')).toMatchObject({ ok: true });
    await server.closed;
  });
});
