// The OpenCode and Kilo adapters on the corpus sample: its JSON storage trees read in place from
// scratch data folders laid out as OpenCode's own, and a SQLite store with OpenCode's schema
// filled from the same trees. Listing, events, tool pairing, subagent lanes, usage against
// counts taken from the files here and against ccusage, pointers that read back, items, and
// damaged or locked stores.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtinSessionAdapters } from '../../src/adapters/index.js';
import { kiloAdapter } from '../../src/adapters/kilo/index.js';
import { openCodeAdapter } from '../../src/adapters/opencode/index.js';
import { storeSessionPath } from '../../src/adapters/opencode/paths.js';
import { exportStoreSession } from '../../src/adapters/opencode/sqlite.js';
import { openCodeUsage } from '../../src/adapters/opencode/usage.js';
import {
  classifyTranscript,
  foldTranscript,
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  type Transcript,
} from '../../src/index.js';
import { nodePlatform } from '../../src/platform-node.js';
import { corpus, corpusPath } from '../corpus.js';
import { buildStore } from '../support/opencode-store.js';

const V2 = corpusPath('more', 'opencode', 'storage_v2');
const LEGACY = corpusPath('more', 'opencode', 'storage_legacy');

type Json = Record<string, unknown>;

/** A data folder `<root>/<name>/storage` holding a copy of a sample tree. */
function dataDir(root: string, name: string, tree: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  cpSync(tree, join(dir, 'storage'), { recursive: true });
  return dir;
}

async function heads(platform: ReturnType<typeof nodePlatform>, agent: string): Promise<SessionHead[]> {
  const out: SessionHead[] = [];
  for await (const e of listSessions(platform, { agent })) {
    if ('ref' in e) throw new Error(e.error.message);
    out.push(e);
  }
  return out;
}

async function load(
  platform: ReturnType<typeof nodePlatform>,
  agent: string,
  path: string,
): Promise<Transcript> {
  const t = await loadTranscript(platform, { agent, path });
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

/** The sample's own counts: each assistant message's or step-finish part's tokens, in cairn's terms. */
function countedFromFiles(): Map<string, { input: number; output: number; requests: number }> {
  const out = new Map<string, { input: number; output: number; requests: number }>();
  const add = (sid: string, tokens: Json) => {
    const cache = (tokens.cache ?? {}) as Json;
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    const input = n(tokens.input) + n(cache.read) + n(cache.write);
    const output = n(tokens.output) + n(tokens.reasoning);
    if (input + output === 0) return;
    const s = out.get(sid) ?? { input: 0, output: 0, requests: 0 };
    s.input += input;
    s.output += output;
    s.requests++;
    out.set(sid, s);
  };
  const steps = new Map<string, Json[]>();
  for (const tree of [V2, LEGACY]) {
    for (const f of walk(join(tree, 'part'))) {
      const p = JSON.parse(readFileSync(f, 'utf8')) as Json;
      const mid = String(p.messageID ?? f.split('/').at(-2));
      if (p.type === 'step-finish') steps.set(mid, [...(steps.get(mid) ?? []), p]);
    }
    for (const f of walk(join(tree, 'message'))) {
      const m = JSON.parse(readFileSync(f, 'utf8')) as Json;
      if (m.role !== 'assistant') continue;
      const mine = steps.get(String(m.id));
      if (mine) for (const s of mine) add(String(m.sessionID), (s.tokens ?? {}) as Json);
      else if (m.tokens) add(String(m.sessionID), m.tokens as Json);
    }
  }
  return out;
}

function walk(dir: string): string[] {
  const { readdirSync, statSync } = require('node:fs') as typeof import('node:fs');
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

describe('opencode and kilo homes', () => {
  const j = (...p: string[]) => p.join('/');
  it('are $XDG_DATA_HOME/<name> (else ~/.local/share/<name>), after $OPENCODE_DATA_DIR for OpenCode', () => {
    expect(openCodeAdapter.homes({ env: {}, homeDir: '/u', join: j })).toEqual(['/u/.local/share/opencode']);
    expect(openCodeAdapter.homes({ env: { XDG_DATA_HOME: '/x' }, homeDir: '/u', join: j })).toEqual([
      '/x/opencode',
    ]);
    expect(openCodeAdapter.homes({ env: { OPENCODE_DATA_DIR: '/a, /b' }, homeDir: '/u', join: j })).toEqual([
      '/a',
      '/b',
      '/u/.local/share/opencode',
    ]);
    expect(kiloAdapter.homes({ env: { XDG_DATA_HOME: '/x' }, homeDir: '/u', join: j })).toEqual(['/x/kilo']);
  });

  it('counts usage as OpenCode records it: input without the cache, output without reasoning', () => {
    expect(openCodeUsage({ input: 10, output: 5, reasoning: 2, cache: { read: 100, write: 7 } })).toEqual({
      inputTokens: 117,
      outputTokens: 7,
      cacheReadTokens: 100,
      cacheWriteTokens: 7,
      reasoningTokens: 2,
    });
    expect(
      openCodeUsage({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }),
    ).toBeUndefined();
    expect(openCodeUsage({ input: 3, output: 1 })).toEqual({ inputTokens: 3, outputTokens: 1 });
  });
});

describe.skipIf(!corpus)('opencode on the JSON storage trees of the sample', () => {
  let platform: ReturnType<typeof nodePlatform>;
  let listed: SessionHead[];
  const loaded = new Map<string, Transcript>();

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-opencode-tree-'));
    const v2 = dataDir(join(root, 'v2'), 'opencode', V2);
    const legacy = dataDir(join(root, 'legacy'), 'opencode', LEGACY);
    platform = nodePlatform({ env: { HOME: root, OPENCODE_DATA_DIR: `${v2},${legacy}` }, homeDir: root });
    listed = await heads(platform, 'opencode');
    for (const h of listed) loaded.set(h.id, await load(platform, h.agent, h.path));
  });

  it('lists each session file with its title, folder and times, and no other agent claims it', () => {
    expect(listed.map((h) => h.id).sort()).toEqual(['s_stage0_drift', 's_stage0_large', 's_stage0_small']);
    expect(listed.find((h) => h.id === 's_stage0_large')).toMatchObject({
      agent: 'opencode',
      title: 'OpenCode Large',
      cwd: '/tmp/large',
      startedAt: 1730000100000,
      lastActivityAt: 1730000109000,
    });
    for (const h of listed) {
      const head = readFileSync(h.path);
      expect(builtinSessionAdapters.filter((a) => a.detect(h.path, head)).map((a) => a.id)).toEqual([
        'opencode',
      ]);
    }
  });

  it('reads messages and parts into events: prompts, text, reasoning, paired tools, a request, a compaction', () => {
    const t = loaded.get('s_stage0_large')!;
    expect(t.session).toMatchObject({ id: 's_stage0_large', cwd: '/tmp/large', title: 'OpenCode Large' });
    expect(t.agentVersion).toBe('1.3.17');
    const kinds = t.events.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'user')).toHaveLength(2);
    expect(kinds).toEqual(
      expect.arrayContaining(['reasoning', 'tool_call', 'tool_result', 'request', 'compaction']),
    );
    const call = t.events.find((e) => e.kind === 'tool_call');
    const result = t.events.find((e) => e.kind === 'tool_result');
    expect(call?.payload).toMatchObject({
      callId: 'call_large_1',
      name: 'bash',
      input: { command: 'ls /non-existent-directory' },
    });
    expect(result?.payload).toMatchObject({ callId: 'call_large_1', durationMs: 500, status: 'completed' });
    expect(result?.payload.orphan).toBeUndefined();
    // The synthetic text OpenCode added is not a prompt; the aborted message's error is kept.
    expect(t.events.find((e) => e.id === 'p_text_large_1')?.payload).toMatchObject({ synthetic: true });
    expect(t.events.some((e) => e.kind === 'system' && e.payload.type === 'api_error')).toBe(true);
    const request = t.events.find((e) => e.kind === 'request');
    expect(request?.payload).toMatchObject({
      model: 'gpt-4o-mini',
      usage: { inputTokens: 120, outputTokens: 16 },
    });
    // Events of the step point at their request.
    expect(t.events.find((e) => e.kind === 'tool_call')?.requestId).toBe(request?.id);
    // Every file is the source of an event or of a skipped record.
    const sources = new Set([...t.events, ...t.skipped].map((x) => x.source.file));
    // The session file, its 4 messages and their 11 parts.
    expect(sources.size).toBe(1 + 4 + 11);
    // A legacy part with a status OpenCode no longer writes is still paired.
    const drift = loaded.get('s_stage0_drift')!;
    expect(drift.events.filter((e) => e.kind === 'tool_result').map((e) => e.payload)).toMatchObject([
      { callId: 'call_legacy_1', output: '# Title\n\nBody\n', status: 'success' },
    ]);
  });

  it('summarizes with the turns, requests and tokens the files record', () => {
    const counted = countedFromFiles();
    for (const [id, t] of loaded) {
      const s = foldTranscript(t);
      const c = counted.get(id);
      expect(s.inputTokens ?? 0, id).toBe(c?.input ?? 0);
      expect(s.outputTokens ?? 0, id).toBe(c?.output ?? 0);
      expect(s.requests ?? 0, id).toBe(c?.requests ?? 0);
      expect(s.subagents, id).toBe(0);
    }
    expect(foldTranscript(loaded.get('s_stage0_large')!)).toMatchObject({
      turns: 2,
      compactions: 1,
      failedTools: 0,
    });
  });

  it('reads every pointer back as the file it came from', async () => {
    for (const t of loaded.values()) {
      for (const x of [...t.events, ...t.skipped]) {
        const back = await readOriginal(platform, x.source);
        if (!back.ok) throw new Error(back.error.message);
        expect(Buffer.from(back.value).equals(readFileSync(x.source.file))).toBe(true);
      }
    }
  });

  it('gives items with the tools under their own names', () => {
    const c = classifyTranscript(loaded.get('s_stage0_small')!, {});
    if (!c.ok) throw new Error(c.error.message);
    expect(c.value.items.map((i) => i.type)).toEqual(
      expect.arrayContaining(['message:user:in', 'tool:bash', 'message:user:out']),
    );
  });
});

describe.skipIf(!corpus)('opencode on a SQLite store filled from the sample', () => {
  let root: string;
  let db: string;
  let platform: ReturnType<typeof nodePlatform>;
  let listed: SessionHead[];
  const loaded = new Map<string, Transcript>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cairn-opencode-db-'));
    const data = join(root, 'data', 'opencode');
    mkdirSync(data, { recursive: true });
    db = join(data, 'opencode.db');
    buildStore(db, [V2, LEGACY]);
    platform = nodePlatform({ env: { HOME: root, XDG_DATA_HOME: join(root, 'data') }, homeDir: root });
    listed = await heads(platform, 'opencode');
    for (const h of listed) loaded.set(h.id, await load(platform, h.agent, h.path));
  });

  it('lists the sessions from the session table, each named by the store and its id', () => {
    expect(listed.map((h) => h.id).sort()).toEqual(['s_stage0_drift', 's_stage0_large', 's_stage0_small']);
    expect(listed.find((h) => h.id === 's_stage0_small')).toMatchObject({
      agent: 'opencode',
      path: storeSessionPath(db, 's_stage0_small'),
      title: 'OpenCode Small',
      cwd: '/tmp/repo',
      startedAt: 1730000000000,
      lastActivityAt: 1730000005000,
    });
  });

  it('translates the rows as it translates the tree: the same events by kind and the same numbers', () => {
    const counted = countedFromFiles();
    for (const [id, t] of loaded) {
      const s = foldTranscript(t);
      expect(s.inputTokens ?? 0, id).toBe(counted.get(id)?.input ?? 0);
      expect(s.outputTokens ?? 0, id).toBe(counted.get(id)?.output ?? 0);
      for (const e of t.events) expect(e.source.sqlite?.table, e.id).toMatch(/^(message|part)$/);
    }
    const small = loaded.get('s_stage0_small')!;
    // Parts go in the order of their ids, as OpenCode reads them.
    expect(small.events.map((e) => e.kind).sort()).toEqual(['assistant', 'tool_call', 'tool_result', 'user']);
  });

  it('equals ccusage 20.0.24 on every session it counts', () => {
    const ref = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'reference', 'ccusage-opencode.json'), 'utf8'),
    ) as {
      sessions: {
        sessionId: string;
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
      }[];
    };
    expect(ref.sessions.length).toBeGreaterThan(0);
    for (const r of ref.sessions) {
      const s = foldTranscript(loaded.get(r.sessionId)!);
      expect(s.inputTokens, r.sessionId).toBe(r.inputTokens + r.cacheReadTokens + r.cacheCreationTokens);
      expect(s.outputTokens, r.sessionId).toBe(r.outputTokens);
    }
  });

  it('reads every pointer back as the row it names, as stored', async () => {
    const conn = new Database(db, { readonly: true });
    try {
      for (const t of loaded.values()) {
        for (const x of [...t.events, ...t.skipped]) {
          const ptr = x.source.sqlite!;
          const back = await readOriginal(platform, x.source);
          if (!back.ok) throw new Error(back.error.message);
          const row = conn.prepare(`SELECT * FROM "${ptr.table}" WHERE rowid = ?`).get(ptr.rowid);
          expect(JSON.parse(Buffer.from(back.value).toString('utf8'))).toEqual(row);
        }
      }
    } finally {
      conn.close();
    }
    // A row deleted since is reported as changed, not as some other row.
    const gone = await readOriginal(platform, {
      file: storeSessionPath(db, 'x'),
      offset: 0,
      length: 0,
      line: 1,
      sqlite: { table: 'part', rowid: 999_999 },
    });
    expect(gone.ok ? undefined : gone.error._tag).toBe('SourceChanged');
    const refused = await readOriginal(platform, {
      file: db,
      offset: 0,
      length: 0,
      line: 1,
      sqlite: { table: 'sqlite_master', rowid: 1 },
    });
    expect(refused.ok).toBe(false);
  });

  it('never writes the store: the database bytes are the same after reading, and nothing is made beside it', async () => {
    const before = readFileSync(db);
    const files = readdirSync(dirname(db)).sort();
    await load(platform, 'opencode', storeSessionPath(db, 's_stage0_large'));
    expect(readFileSync(db).equals(before)).toBe(true);
    // A store in WAL mode with no -shm or -wal beside it (its agent not running) is read from memory.
    expect(readdirSync(dirname(db)).sort()).toEqual(files);
  });

  it('reads a store its agent has open where it is, rows still in the write-ahead log included', async () => {
    const copy = join(root, 'running', 'opencode');
    mkdirSync(copy, { recursive: true });
    const live = join(copy, 'opencode.db');
    buildStore(live, [V2]);
    const agent = new Database(live);
    try {
      agent.prepare("UPDATE session SET title = 'Renamed while running' WHERE id = 's_stage0_large'").run();
      const files = readdirSync(copy).sort();
      expect(files).toEqual(['opencode.db', 'opencode.db-shm', 'opencode.db-wal']);
      const t = await load(platform, 'opencode', storeSessionPath(live, 's_stage0_large'));
      expect(t.session.title).toBe('Renamed while running');
      expect(readdirSync(copy).sort()).toEqual(files);
    } finally {
      agent.close();
    }
  });

  it('skips a row whose data is not JSON, a part of an unknown type is an unknown event, and the rest is read', async () => {
    const copy = join(root, 'damaged', 'opencode');
    mkdirSync(copy, { recursive: true });
    const bad = join(copy, 'opencode.db');
    buildStore(bad, [V2]);
    const w = new Database(bad);
    w.prepare('UPDATE part SET data = \'{"type":"text",\' WHERE id = \'p_text_large_2\'').run();
    w.prepare(
      "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('p_new', 'm_assistant_large_2', 's_stage0_large', 0, 0, '{\"type\":\"hologram\"}')",
    ).run();
    w.close();
    const t = await load(platform, 'opencode', storeSessionPath(bad, 's_stage0_large'));
    expect(t.skipped.find((s) => s.reason === 'data is not JSON')?.source.sqlite?.table).toBe('part');
    expect(t.events.find((e) => e.kind === 'unknown')?.payload).toMatchObject({ recordType: 'hologram' });
    expect(t.events.some((e) => e.kind === 'tool_call')).toBe(true);
  });

  it('reports a store held by an exclusive lock as busy, after trying again', async () => {
    const copy = join(root, 'locked', 'opencode');
    mkdirSync(copy, { recursive: true });
    const locked = join(copy, 'opencode.db');
    buildStore(locked, [V2]);
    const w = new Database(locked);
    // A store with a rollback journal is read where it is, so its writer's lock holds the read off.
    w.pragma('journal_mode = DELETE');
    w.pragma('locking_mode = EXCLUSIVE');
    w.exec('BEGIN EXCLUSIVE');
    w.prepare("UPDATE session SET title = 'x'").run();
    try {
      const t = await loadTranscript(platform, {
        agent: 'opencode',
        path: storeSessionPath(locked, 's_stage0_large'),
      });
      expect(t.ok).toBe(false);
      if (!t.ok) expect(t.error.message).toMatch(/locked|busy/);
    } finally {
      w.exec('ROLLBACK');
      w.close();
    }
  });

  it('reads a store in WAL mode held by an exclusive lock as of its last commit, from a copy', async () => {
    const copy = join(root, 'locked-wal', 'opencode');
    mkdirSync(copy, { recursive: true });
    const locked = join(copy, 'opencode.db');
    buildStore(locked, [V2]);
    const w = new Database(locked);
    w.pragma('locking_mode = EXCLUSIVE');
    w.exec('BEGIN EXCLUSIVE');
    w.prepare("UPDATE session SET title = 'x'").run();
    try {
      const files = readdirSync(copy).sort();
      const t = await load(platform, 'opencode', storeSessionPath(locked, 's_stage0_large'));
      expect(t.session.title).toBe('OpenCode Large');
      expect(readdirSync(copy).sort()).toEqual(files);
    } finally {
      w.exec('ROLLBACK');
      w.close();
    }
  });

  it('makes child sessions subagent lanes started by the task call that names them', async () => {
    const copy = join(root, 'children', 'opencode');
    mkdirSync(copy, { recursive: true });
    const store = join(copy, 'opencode.db');
    buildStore(store, [V2]);
    const w = new Database(store);
    w.prepare(
      `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
       VALUES ('ses_child', 'proj_test', 's_stage0_small', 'child', '/tmp/repo', 'Look around (@explore subagent)', '1.3.17', 1730000002600, 1730000002900)`,
    ).run();
    const msg = (id: string, role: string, at: number, extra: Json = {}) =>
      w
        .prepare(
          'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
        )
        .run(id, 'ses_child', at, at, JSON.stringify({ role, time: { created: at }, ...extra }));
    const part = (id: string, mid: string, data: Json) =>
      w
        .prepare(
          'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)',
        )
        .run(id, mid, 'ses_child', JSON.stringify(data));
    msg('msg_c1', 'user', 1730000002600);
    part('prt_c1', 'msg_c1', { type: 'text', text: 'List the files' });
    msg('msg_c2', 'assistant', 1730000002700, { modelID: 'm', providerID: 'p' });
    part('prt_c2', 'msg_c2', { type: 'text', text: 'a.txt b.txt' });
    part('prt_c3', 'msg_c2', {
      type: 'step-finish',
      reason: 'stop',
      tokens: { input: 5, output: 2, reasoning: 1, cache: { read: 40, write: 0 } },
    });
    part('prt_task', 'm_assistant_small', {
      type: 'tool',
      callID: 'call_task',
      tool: 'task',
      state: {
        status: 'completed',
        input: { prompt: 'List the files' },
        output: 'a.txt b.txt',
        metadata: { sessionId: 'ses_child' },
        time: { start: 1730000002550, end: 1730000002950 },
      },
    });
    w.close();
    const t = await load(platform, 'opencode', storeSessionPath(store, 's_stage0_small'));
    const spawn = t.events.find((e) => e.kind === 'tool_call' && e.payload.callId === 'call_task');
    expect(t.agents).toEqual([
      { id: 's_stage0_small', title: 'OpenCode Small' },
      {
        id: 'ses_child',
        parentId: 's_stage0_small',
        title: 'Look around (@explore subagent)',
        spawnEventId: spawn?.id,
      },
    ]);
    const child = t.events.filter((e) => e.agentId === 'ses_child');
    expect(child.map((e) => e.kind)).toEqual(['user', 'assistant', 'request']);
    const s = foldTranscript(t);
    expect(s.subagents).toBe(1);
    // The main lane's prompt is the only turn; the child's tokens count in the session's.
    expect(s.turns).toBe(1);
    expect(s.inputTokens).toBe(45);
    expect(s.outputTokens).toBe(3);
    // The export names every row once, children included.
    const lines = new TextDecoder()
      .decode(await exportStoreSession(store, 's_stage0_small'))
      .trim()
      .split('\n');
    expect(lines.filter((l) => l.includes('"table":"session"'))).toHaveLength(2);
  });

  it('lists a store of 10,000 sessions from the session table, each with its own name', async () => {
    const data = join(root, 'many', 'opencode');
    mkdirSync(data, { recursive: true });
    const many = join(data, 'opencode.db');
    buildStore(many, [V2]);
    const w = new Database(many);
    const add = w.prepare(
      `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
       VALUES (?, 'proj_test', 's', '/tmp/many', ?, '1.3.17', ?, ?)`,
    );
    // A message row whose data is not JSON: a listing that read messages would meet it.
    const msg = w.prepare(
      "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, 0, 0, 'not json')",
    );
    w.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const id = `ses_many${String(i).padStart(5, '0')}`;
        add.run(id, `Session ${i}`, 1730000000000 + i, 1730000000000 + i);
        msg.run(`msg_many${i}`, id);
      }
    })();
    w.close();
    const p = nodePlatform({ env: { HOME: root, OPENCODE_DATA_DIR: data }, homeDir: root });
    const listed = await heads(p, 'opencode');
    expect(listed).toHaveLength(10_002);
    expect(new Set(listed.map((h) => h.path)).size).toBe(10_002);
    expect(listed.find((h) => h.id === 'ses_many09999')).toMatchObject({
      title: 'Session 9999',
      cwd: '/tmp/many',
    });
  });

  it('lists a Kilo store (kilo.db) as Kilo sessions, and OpenCode does not claim them', async () => {
    const kdata = join(root, 'kdata');
    mkdirSync(join(kdata, 'kilo'), { recursive: true });
    const kdb = join(kdata, 'kilo', 'kilo.db');
    buildStore(kdb, [V2]);
    const kplatform = nodePlatform({ env: { HOME: root, XDG_DATA_HOME: kdata }, homeDir: root });
    const k = await heads(kplatform, 'kilo');
    expect(k.map((h) => [h.agent, h.id]).sort()).toEqual([
      ['kilo', 's_stage0_large'],
      ['kilo', 's_stage0_small'],
    ]);
    expect(await heads(kplatform, 'opencode')).toEqual([]);
    const t = await loadTranscript(kplatform, { path: storeSessionPath(kdb, 's_stage0_large') });
    expect(t.ok && t.value.agent).toBe('kilo');
    rmSync(join(kdata, 'kilo'), { recursive: true, force: true });
  });
});
