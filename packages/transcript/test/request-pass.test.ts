// The usage reports take each session's requests from the agent's request pass, which builds no
// events. Its list must be the one the full translation gives, field for field and in order: on
// every corpus session of an agent with a pass, read from bytes or from decoded text, and on
// sessions made to test the rules (repeated message ids, replayed records, side questions,
// subagent files merged by time).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSessions, loadTranscript, type SessionHead, type SessionPlatform } from '../src/index.js';
import { passRequests, sessionRequestsRead, transcriptRequests } from '../src/request-pass.js';
import { corpus } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';

const PASS_AGENTS = new Set(['claude-code', 'codex']);

async function fullRead(platform: SessionPlatform, target: { path: string; agent: string }) {
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) throw new Error(`${target.path}: ${loaded.error.message}`);
  return transcriptRequests(loaded.value);
}

describe.skipIf(!corpus)('the request pass on every corpus session', () => {
  const platform = corpusPlatform();
  // The same files without the native UTF-8 check: every line is decoded first.
  const { isWellFormedUtf8: _, ...decoding } = platform;

  it('gives the requests, folder and title of the full translation', async () => {
    const heads: SessionHead[] = [];
    for await (const entry of listSessions(platform)) if (!('ref' in entry)) heads.push(entry);
    const mine = heads.filter((h) => PASS_AGENTS.has(h.agent));
    expect(mine.length).toBeGreaterThan(3);
    let requests = 0;
    for (const h of mine) {
      const target = { path: h.path, agent: h.agent, sessionId: h.id };
      const full = await fullRead(platform, target);
      const fast = await passRequests(platform, target);
      // Every corpus session is one the pass answers, not one it leaves to the full load.
      expect(fast, h.path).toEqual(full);
      expect(await passRequests(decoding as SessionPlatform, target), h.path).toEqual(full);
      requests += full.requests.length;
    }
    expect(requests).toBeGreaterThan(100);
  });
});

const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const env = { sessionId: 's1', cwd: '/w', version: '2.1.50', isSidechain: false };

function assistant(
  uuid: string,
  s: number,
  id: string,
  usage: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    ...env,
    type: 'assistant',
    uuid,
    requestId: `req_${id}`,
    timestamp: at(s),
    message: { id, model: 'claude-x', role: 'assistant', content: [{ type: 'text', text: 'hi' }], usage },
    ...extra,
  });
}

const user = (uuid: string, s: number, text = 'go') =>
  JSON.stringify({ ...env, type: 'user', uuid, timestamp: at(s), message: { role: 'user', content: text } });

/** A Claude Code home holding one session: its main file and subagent files. */
function session(main: string[], subagents: Record<string, string[]> = {}) {
  const home = tempHome();
  const dir = join(home, '.claude', 'projects', '-w');
  mkdirSync(join(dir, 's1', 'subagents'), { recursive: true });
  const path = join(dir, 's1.jsonl');
  writeFileSync(path, `${main.join('\n')}\n`);
  for (const [name, lines] of Object.entries(subagents))
    writeFileSync(join(dir, 's1', 'subagents', `agent-${name}.jsonl`), `${lines.join('\n')}\n`);
  return { platform: tempPlatform(home), target: { path, agent: 'claude-code', sessionId: 's1' } };
}

describe('the request pass on made sessions', () => {
  it('keeps a response once with its largest usage, its first time and the first model', async () => {
    const { platform, target } = session([
      user('u1', 0),
      assistant('a1', 1, 'm1', { input_tokens: 5, output_tokens: 1 }),
      assistant('a2', 2, 'm1', {
        input_tokens: 5,
        output_tokens: 9,
        cache_creation: { ephemeral_1h_input_tokens: 4 },
        cache_creation_input_tokens: 6,
      }),
      // A later line of the same response with a smaller count: the largest stays.
      assistant('a2b', 2, 'm1', { input_tokens: 5, output_tokens: 3 }),
      JSON.stringify({ type: 'custom-title', customTitle: 'named', sessionId: 's1' }),
      assistant('a3', 3, 'm2', { input_tokens: 1, output_tokens: 1 }, { message: { id: 'm2' } }),
      '{"type":"assistant", broken',
    ]);
    const full = await fullRead(platform, target);
    expect(full.requests).toHaveLength(1);
    expect(full.requests[0]).toMatchObject({ at: Date.parse(at(1)), model: 'claude-x' });
    expect(full.requests[0]!.usage).toMatchObject({
      outputTokens: 9,
      cacheWriteTokens: 6,
      cacheWrite1hTokens: 4,
    });
    expect(full.title).toBe('named');
    expect(await passRequests(platform, target)).toEqual(full);
  });

  it('merges subagent files by time and skips their replays of the main file', async () => {
    const { platform, target } = session(
      [
        user('u1', 0),
        assistant('a1', 1, 'm1', { input_tokens: 5, output_tokens: 1 }),
        assistant('a2', 5, 'm2', { input_tokens: 6, output_tokens: 2 }),
        assistant('a3', 9, 'm3', { input_tokens: 7, output_tokens: 3 }),
      ],
      {
        x1: [
          user('u1', 0),
          // A replay of the main file's record: its usage is not taken again.
          assistant('a1', 1, 'm1', { input_tokens: 50, output_tokens: 10 }),
          assistant('b1', 5, 'm4', { input_tokens: 8, output_tokens: 4 }, { isSidechain: true }),
          assistant('b2', 6, 'm5', { input_tokens: 9, output_tokens: 5 }, { isSidechain: true }),
        ],
      },
    );
    const full = await fullRead(platform, target);
    expect(full.requests.map((r) => r.usage.outputTokens)).toEqual([1, 2, 4, 5, 3]);
    expect(await passRequests(platform, target)).toEqual(full);
  });

  it('merges files whose times go back as translate does, not as a sort would', async () => {
    const { platform, target } = session(
      [
        assistant('a1', 1, 'm1', { input_tokens: 5, output_tokens: 1 }),
        assistant('a2', 8, 'm2', { input_tokens: 6, output_tokens: 2 }),
        user('u2', 2),
        assistant('a3', 3, 'm3', { input_tokens: 7, output_tokens: 3 }),
      ],
      { x1: [assistant('b1', 4, 'm4', { input_tokens: 8, output_tokens: 4 }, { isSidechain: true })] },
    );
    const full = await fullRead(platform, target);
    // The subagent's request goes before the main file's at 8, and the one at 3 stays after it.
    expect(full.requests.map((r) => r.usage.outputTokens)).toEqual([1, 4, 2, 3]);
    expect(await passRequests(platform, target)).toEqual(full);
  });

  it("places a subagent's request by the main file's other records too", async () => {
    const { platform, target } = session(
      [
        assistant('a1', 1, 'm1', { input_tokens: 5, output_tokens: 1 }),
        // A user record at 6 holds the main file back until the subagent's request at 4 is placed.
        user('u2', 6),
        assistant('a2', 2, 'm2', { input_tokens: 6, output_tokens: 2 }),
      ],
      { x1: [assistant('b1', 4, 'm4', { input_tokens: 8, output_tokens: 4 }, { isSidechain: true })] },
    );
    const full = await fullRead(platform, target);
    expect(full.requests.map((r) => r.usage.outputTokens)).toEqual([1, 4, 2]);
    expect(await passRequests(platform, target)).toEqual(full);
  });

  it('leaves a file of an unknown generation to the full load, which says what is wrong', async () => {
    const { platform, target } = session([
      JSON.stringify({ type: 'nonsense', at: 1 }),
      assistant('a1', 1, 'm1', { input_tokens: 5, output_tokens: 1 }),
    ]);
    expect(await passRequests(platform, target)).toBeUndefined();
    const read = await sessionRequestsRead(platform, target);
    const loaded = await loadTranscript(platform, target);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toEqual(!loaded.ok && loaded.error);
  });
});

const rec = (at: string, type: string, payload: unknown) => JSON.stringify({ timestamp: at, type, payload });
const tokens = (input: number, output: number) => ({
  input_tokens: input,
  cached_input_tokens: Math.floor(input / 2),
  output_tokens: output,
  reasoning_output_tokens: 1,
  total_tokens: input + output,
});

describe('the request pass on a made rollout', () => {
  it("counts a forked rollout's own snapshots, not its copy of the parent's", async () => {
    // UUIDv7 ids: the parent's turn was created before the child, the child's own turn after it.
    const parentTurn = '019c8a70-dda7-7f33-98ea-f30553347322';
    const child = '019c8a80-0000-7000-8000-000000000001';
    const ownTurn = '019c8a80-1000-7000-8000-000000000002';
    const home = tempHome();
    const dir = join(home, '.codex', 'sessions', '2026', '02', '23');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `rollout-2026-02-23T12-37-00-${child}.jsonl`);
    const t = (ms: number) =>
      `2026-02-23T12:37:0${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}Z`;
    const lines = [
      rec(t(0), 'session_meta', {
        id: child,
        forked_from_id: '019c8a70-dda7-7f33-98ea-f30553347300',
        timestamp: t(0),
        cwd: '/w',
        cli_version: '0.104.0',
      }),
      rec(t(1), 'turn_context', { turn_id: parentTurn, model: 'gpt-parent', cwd: '/p' }),
      rec(t(2), 'event_msg', { type: 'token_count', info: { total_token_usage: tokens(100, 10) } }),
      rec(t(3), 'response_item', { type: 'message', role: 'assistant', content: [] }),
      rec(t(1000), 'turn_context', { turn_id: ownTurn, model: 'gpt-child', cwd: '/w' }),
      rec(t(1001), 'event_msg', { type: 'task_started', turn_id: ownTurn }),
      rec(t(1002), 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: tokens(130, 15), last_token_usage: tokens(30, 5) },
      }),
      // The same totals again: no request.
      rec(t(1003), 'event_msg', { type: 'token_count', info: { total_token_usage: tokens(130, 15) } }),
      // Totals without the last request's own: it is how far they moved.
      rec(t(2000), 'event_msg', { type: 'token_count', info: { total_token_usage: tokens(170, 22) } }),
      rec(t(2001), 'event_msg', { type: 'thread_name_updated', thread_name: 'named' }),
    ];
    writeFileSync(path, `${lines.join('\n')}\n`);
    const platform = tempPlatform(home);
    const target = { path, agent: 'codex', sessionId: child };
    const full = await fullRead(platform, target);
    expect(full.requests.map((r) => [r.model, r.usage.inputTokens, r.usage.outputTokens])).toEqual([
      ['gpt-child', 30, 5],
      ['gpt-child', 40, 7],
    ]);
    expect(full.title).toBe('named');
    expect(await passRequests(platform, target)).toEqual(full);
  });
});
