// The OpenCode family's summary pass gives the fold of the full translation, field for field: on
// every corpus session read from its JSON tree, from an OpenCode store and a Kilo store filled from
// the same trees, and from a store session's export (whole and cut after each line), and on rows
// made to reach each rule (child sessions, synthetic and summary text, failed and pending tools,
// message-level tokens, errors, bad times, rows that are not JSON).
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionAdapter, SourceFile } from '../../src/adapter.js';
import { kiloAdapter } from '../../src/adapters/kilo/index.js';
import { openCodeAdapter } from '../../src/adapters/opencode/index.js';
import { storeSessionPath } from '../../src/adapters/opencode/paths.js';
import { exportStoreSession } from '../../src/adapters/opencode/sqlite.js';
import {
  foldTranscript,
  listSessions,
  loadTranscript,
  type SessionHead,
  type SessionSummaryWithPrompts,
  summarizeSession,
} from '../../src/index.js';
import { splitLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import { nodePlatform } from '../../src/platform-node.js';
import type { Result } from '../../src/result.js';
import { corpus, corpusPath } from '../corpus.js';
import { buildStore } from '../support/opencode-store.js';

const V2 = corpusPath('more', 'opencode', 'storage_v2');
const LEGACY = corpusPath('more', 'opencode', 'storage_legacy');

type Platform = ReturnType<typeof nodePlatform>;
type Outcome = Result<SessionSummaryWithPrompts, { message: string }>;
type Json = Record<string, unknown>;

const outcome = (r: Result<SessionSummaryWithPrompts, { message: string }>): Outcome =>
  r.ok ? r : { ok: false, error: { message: r.error.message } };

function fold(adapter: SessionAdapter, files: readonly SourceFile[]): Outcome {
  const r = adapter.translate(files);
  if (!r.ok) return { ok: false, error: { message: r.error.message } };
  return { ok: true, value: foldTranscript(finishTranscript(adapter.id, r.value), { prompts: true }) };
}

const platformAt = (root: string): Platform =>
  nodePlatform({ env: { HOME: root, XDG_DATA_HOME: join(root, 'data') }, homeDir: root });

async function heads(platform: Platform, agent: string): Promise<SessionHead[]> {
  const out: SessionHead[] = [];
  for await (const e of listSessions(platform, { agent })) {
    if ('ref' in e) throw new Error(e.error.message);
    out.push(e);
  }
  return out;
}

/** summarizeSession (the adapter's pass) equals the fold of the loaded transcript; returns it. */
async function expectAgree(
  platform: Platform,
  agent: string,
  path: string,
): Promise<SessionSummaryWithPrompts> {
  const target = { agent, path };
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const want = foldTranscript(loaded.value, { prompts: true });
  const fast = await summarizeSession(platform, target, { prompts: true });
  if (!fast.ok) throw new Error(fast.error.message);
  expect(fast.value, path).toEqual(want);
  return want;
}

/** A store session's export as the file a translation reads, whole and cut after each line. */
async function expectExportAgrees(adapter: SessionAdapter, db: string, id: string): Promise<void> {
  const path = storeSessionPath(db, id);
  const data = await exportStoreSession(db, id);
  const whole = [{ path, data }];
  expect(outcome(adapter.summarize!(whole)), `${id}: export`).toEqual(fold(adapter, whole));
  for (const span of splitLines(data)) {
    const cut = [{ path, data: data.subarray(0, span.offset + span.length + 1) }];
    expect(outcome(adapter.summarize!(cut)), `${id}: export cut after line ${span.line}`).toEqual(
      fold(adapter, cut),
    );
  }
}

describe.skipIf(!corpus)('the OpenCode family’s summary pass on the corpus', () => {
  let root: string;
  let platform: Platform;
  let opencodeDb: string;
  let kiloDb: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cairn-opencode-summary-'));
    platform = platformAt(root);
    const data = join(root, 'data');
    mkdirSync(join(data, 'opencode'), { recursive: true });
    mkdirSync(join(data, 'kilo'), { recursive: true });
    opencodeDb = join(data, 'opencode', 'opencode.db');
    kiloDb = join(data, 'kilo', 'kilo.db');
    buildStore(opencodeDb, [V2, LEGACY]);
    buildStore(kiloDb, [V2, LEGACY]);
  });

  it('equals the fold on every session of the JSON trees', async () => {
    for (const tree of [V2, LEGACY]) {
      const home = mkdtempSync(join(tmpdir(), 'cairn-opencode-summary-tree-'));
      cpSync(tree, join(home, 'data', 'opencode', 'storage'), { recursive: true });
      const treePlatform = platformAt(home);
      const listed = await heads(treePlatform, 'opencode');
      expect(listed.length, tree).toBeGreaterThan(0);
      for (const h of listed) await expectAgree(treePlatform, 'opencode', h.path);
    }
  });

  for (const [agent, adapter, db] of [
    ['opencode', openCodeAdapter, () => opencodeDb],
    ['kilo', kiloAdapter, () => kiloDb],
  ] as const) {
    it(`${agent}: equals the fold on every session of a store, and of its export whole and cut short`, async () => {
      const listed = await heads(platform, agent);
      expect(listed.map((h) => h.id).sort()).toEqual(['s_stage0_drift', 's_stage0_large', 's_stage0_small']);
      let counted = 0;
      for (const h of listed) {
        const s = await expectAgree(platform, agent, h.path);
        if ((s.turns ?? 0) > 0 && (s.requests ?? 0) > 0 && (s.inputTokens ?? 0) > 0) counted++;
        await expectExportAgrees(adapter, db(), h.id);
      }
      expect(counted).toBeGreaterThan(0);
    });
  }
});

describe.skipIf(!corpus)('the OpenCode family’s summary pass on rows that reach each rule', () => {
  let root: string;
  let platform: Platform;
  let db: string;
  const MAIN = 's_stage0_small';

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cairn-opencode-summary-rules-'));
    platform = platformAt(root);
    mkdirSync(join(root, 'data', 'opencode'), { recursive: true });
    db = join(root, 'data', 'opencode', 'opencode.db');
    buildStore(db, [V2]);
    const w = new Database(db);
    // A part of a message that is not there is what these rows are made to reach.
    w.pragma('foreign_keys = OFF');
    const session = (id: string, parent: string, at: number) =>
      w
        .prepare(
          `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           VALUES (?, 'proj_test', ?, ?, '/tmp/repo', ?, '1.3.17', ?, ?)`,
        )
        .run(id, parent, id, `child ${id}`, at, at);
    const msg = (id: string, sid: string, at: number, data: Json) =>
      w
        .prepare(
          'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
        )
        .run(id, sid, at, at, JSON.stringify(data));
    let n = 0;
    const part = (mid: string, sid: string, data: Json | string) =>
      w
        .prepare(
          'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)',
        )
        .run(
          `prt_rule_${String(++n).padStart(3, '0')}`,
          mid,
          sid,
          typeof data === 'string' ? data : JSON.stringify(data),
        );
    const T = 1730000010000;
    const tokens = (input: number, output: number, reasoning = 0, read = 0, write = 0) => ({
      input,
      output,
      reasoning,
      cache: { read, write },
    });
    // A child session, and a grandchild: subagents, whose prompts are no turns and whose tokens
    // count in the session's (but not in the main lane's context shape).
    session('ses_rule_child', MAIN, T);
    session('ses_rule_grandchild', 'ses_rule_child', T + 1);
    msg('msg_rule_c1', 'ses_rule_child', T + 10, { role: 'user', time: { created: T + 10 } });
    part('msg_rule_c1', 'ses_rule_child', { type: 'text', text: 'child brief' });
    msg('msg_rule_c2', 'ses_rule_child', T + 20, {
      role: 'assistant',
      modelID: 'm',
      providerID: 'p',
      time: { created: T + 20, completed: T + 30 },
    });
    part('msg_rule_c2', 'ses_rule_child', { type: 'step-start' });
    part('msg_rule_c2', 'ses_rule_child', { type: 'step-finish', tokens: tokens(7, 3, 2, 50, 4) });
    msg('msg_rule_g1', 'ses_rule_grandchild', T + 40, {
      role: 'assistant',
      modelID: 'm',
      time: { created: T + 40 },
      // No step: the message's own tokens make one request.
      tokens: tokens(11, 1),
    });
    part('msg_rule_g1', 'ses_rule_grandchild', { type: 'text', text: 'deep answer' });
    // The main lane: a typed prompt, a synthetic one, a compaction and its summary message.
    msg('msg_rule_m1', MAIN, T + 100, { role: 'user', time: { created: T + 100 } });
    part('msg_rule_m1', MAIN, { type: 'text', text: 'second prompt' });
    part('msg_rule_m1', MAIN, { type: 'text', text: 'added by a tool', synthetic: true });
    part('msg_rule_m1', MAIN, { type: 'compaction', auto: true });
    msg('msg_rule_m2', MAIN, T + 110, {
      role: 'user',
      summary: true,
      time: { created: T + 110 },
    });
    part('msg_rule_m2', MAIN, { type: 'text', text: 'the summary so far' });
    // Tools: failed, pending, with no state at all, completed late (its end is the session's last time).
    msg('msg_rule_m3', MAIN, T + 120, {
      role: 'assistant',
      modelID: 'm',
      providerID: 'p',
      time: { created: T + 120, completed: T + 130 },
    });
    part('msg_rule_m3', MAIN, { type: 'reasoning', text: 'hmm', time: { start: T + 121 } });
    part('msg_rule_m3', MAIN, {
      type: 'tool',
      callID: 'c_fail',
      tool: 'bash',
      state: { status: 'error', input: {}, error: 'denied', time: { start: T + 122, end: T + 123 } },
    });
    part('msg_rule_m3', MAIN, { type: 'tool', callID: 'c_wait', tool: 'bash', state: { status: 'pending' } });
    part('msg_rule_m3', MAIN, { type: 'tool', callID: 'c_none', tool: 'read' });
    part('msg_rule_m3', MAIN, {
      type: 'tool',
      callID: 'c_late',
      tool: 'read',
      state: { status: 'completed', input: {}, output: 'ok', time: { start: T + 124, end: T + 9000 } },
    });
    part('msg_rule_m3', MAIN, { type: 'step-finish', tokens: tokens(100, 10, 5, 1000) });
    // A step of all-zero tokens is a request without usage.
    part('msg_rule_m3', MAIN, { type: 'step-finish', tokens: tokens(0, 0) });
    part('msg_rule_m3', MAIN, { type: 'patch', files: ['a.ts'] });
    part('msg_rule_m3', MAIN, { type: 'hologram' });
    part('msg_rule_m3', MAIN, '{"type":"text",');
    part('msg_rule_m3', MAIN, '[1, 2]');
    // An error with its completion time; a message whose time is no time.
    msg('msg_rule_m4', MAIN, T + 140, {
      role: 'assistant',
      time: { created: T + 140, completed: T + 150 },
      error: { name: 'APIError', data: { message: 'overloaded' } },
    });
    msg('msg_rule_m5', MAIN, T + 160, { role: 'user', time: { created: -5 } });
    part('msg_rule_m5', MAIN, { type: 'text', text: 'a prompt of no time' });
    // An assistant message with no step and tokens, and one with neither.
    msg('msg_rule_m6', MAIN, T + 170, {
      role: 'assistant',
      modelID: 'm',
      time: { created: T + 170 },
      tokens: tokens(20, 2),
    });
    msg('msg_rule_m7', MAIN, T + 180, { role: 'assistant', time: { created: T + 180 } });
    // A part of a message that is not in the session.
    part('msg_rule_gone', MAIN, { type: 'text', text: 'lost' });
    w.close();
  });

  it('counts every rule as the translation does, through the library and on the export', async () => {
    const s = await expectAgree(platform, 'opencode', storeSessionPath(db, MAIN));
    expect(s.subagents).toBe(2);
    expect(s.failedTools).toBeGreaterThanOrEqual(1);
    expect(s.compactions).toBeGreaterThanOrEqual(1);
    expect(s.prompts).toContain('second prompt');
    expect(s.prompts).toContain('a prompt of no time');
    expect(s.prompts).not.toContain('child brief');
    expect(s.prompts).not.toContain('added by a tool');
    expect(s.prompts).not.toContain('the summary so far');
    // The late tool's end is the last time: the duration reaches it.
    expect(s.durationMs).toBeGreaterThan(8000);
    await expectExportAgrees(openCodeAdapter, db, MAIN);
  });

  it('counts a repeated message row once and refuses a tree whose first file is no session, as the translation does', () => {
    const path = storeSessionPath(db, MAIN);
    const row = (table: string, rowid: number, r: Json) => JSON.stringify({ table, rowid, row: r });
    const m = { id: 'msg_x', session_id: MAIN, time_created: 5, data: JSON.stringify({ role: 'user' }) };
    const p = { id: 'prt_x', session_id: MAIN, message_id: 'msg_x', data: '{"type":"text","text":"twice"}' };
    const data = new TextEncoder().encode(
      `${[row('session', 1, { id: MAIN, time_created: 1 }), row('message', 2, m), row('message', 3, m), row('part', 4, p), row('todo', 5, { id: 't' }), '{"broken":'].join('\n')}\n`,
    );
    const files = [{ path, data }];
    const want = fold(openCodeAdapter, files);
    expect(want.ok && want.value.turns).toBe(1);
    expect(outcome(openCodeAdapter.summarize!(files))).toEqual(want);

    const tree = [
      {
        path: '/d/opencode/storage/message/s/msg_1.json',
        data: new TextEncoder().encode('{"role":"user","id":"msg_1"}'),
      },
    ];
    const refused = fold(openCodeAdapter, tree);
    expect(refused.ok).toBe(false);
    expect(outcome(openCodeAdapter.summarize!(tree))).toEqual(refused);
  });
});
