// Hostile sessions and frames through a real server and a real WebSocket: one bad value fails at
// most its own request, and the daemon goes on answering.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStreamFrame, validate } from '@cairn/protocol';
import { DEEP_VALUE_PLACEHOLDER } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../transcript/src/adapters/claude-code/index.js';
import { finishTranscript } from '../../transcript/src/load.js';
import { tempHome } from '../../transcript/test/homes.js';
import { deepArrays, writeDeepSessions, writeOddNumberSessions } from '../../transcript/test/hostile.js';
import { frameText } from '../src/gate/ws.js';
import type { RunningServer } from '../src/index.js';
import { laneItems } from '../src/indexing/search-docs.js';
import { FrameBuilder, itemsByEvent } from '../src/streams/frames.js';
import { Client, type Frame, homeEnv, serve } from './helpers.js';

const placeholder = JSON.stringify(DEEP_VALUE_PLACEHOLDER).slice(1, -1);

describe('sessions with a value nested 10,000 levels deep', () => {
  const home = tempHome();
  const sessions = writeDeepSessions(home);
  const log: string[] = [];
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await serve(homeEnv(home), { log: (line) => log.push(line) });
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const cases = [
    ['claude-code', sessions.claude.id],
    ['gemini-cli', sessions.gemini.id],
    ['codex', sessions.codex.id],
  ] as const;

  it('indexes and lists every one of them', async () => {
    const reply = await client.request('session_list', {});
    expect(reply.ok).toBe(true);
    const sids = (reply.sessions as { sid: string }[]).map((s) => s.sid);
    for (const [, sid] of cases) expect(sids).toContain(sid);
  });

  it.each(cases)(
    'streams the %s session’s history with the deep part as the placeholder',
    async (agent, sid) => {
      const topic = `session:${agent}:${sid}`;
      expect(await client.request('topic_subscribe', { topic })).toMatchObject({ ok: true, topic });
      await client.until((frames) =>
        frames.some((f) => f.sessionId === sid && f.type === 'transcript_ready'),
      );
      const ready = client.frames.find((f) => f.sessionId === sid && f.type === 'transcript_ready')!;
      const text = JSON.stringify(ready.history);
      expect(text).toContain(placeholder);
      expect(text).toContain('after the deep value');
    },
  );

  it.each(cases)('writes the %s session’s dump as JSON and as Markdown', async (agent, sid) => {
    for (const format of ['json', 'md']) {
      const reply = await client.request('session_dump_write', {
        sid,
        agent,
        types: ['tool', 'message'],
        format,
      });
      expect(reply).toMatchObject({ ok: true });
      expect(reply.bytes as number).toBeGreaterThan(0);
    }
  });

  it.each(cases)('reads the %s session’s items and finds words after the deep value', async (agent, sid) => {
    const items = await client.request('transcript_items_read', { sid, agent, types: ['tool', 'message'] });
    expect(items.ok).toBe(true);
    expect(JSON.stringify(items.items)).toContain('after the deep value');
    const search = await client.request('session_search', { query: 'after the deep value' });
    expect(search.ok).toBe(true);
    expect((search.hits as { sid: string }[]).map((h) => h.sid)).toContain(sid);
  });

  it('refuses a request frame nested 10,000 levels deep, naming its request, and keeps answering', async () => {
    const ws = client.ws;
    const reply = new Promise<Frame>((resolve) =>
      ws.once('message', (data) => resolve(JSON.parse(data.toString()) as Frame)),
    );
    ws.send(`{"request_id":"deep-1","op":"session_list","extra":${deepArrays(10_000)}}`);
    expect(await reply).toMatchObject({ ok: false, request_id: 'deep-1', error: { code: 'bad_request' } });
    expect(await client.request('ping')).toMatchObject({ ok: true });
  });
});

describe('a frame that cannot be serialized', () => {
  const deep = (): unknown[] => {
    let v: unknown[] = [];
    for (let i = 0; i < 20_000; i++) v = [v];
    return v;
  };

  it('becomes an internal_error refusal of its own request', () => {
    const lines: string[] = [];
    const text = frameText({ ok: true, request_id: 'r-1', value: deep() }, (l) => lines.push(l));
    expect(JSON.parse(text)).toMatchObject({
      ok: false,
      request_id: 'r-1',
      error: { code: 'internal_error' },
    });
    expect(lines).toHaveLength(1);
  });

  it('becomes a refusal that names no request when it is a topic frame', () => {
    const text = frameText({ type: 'transcript_ready', history: deep() });
    const frame = JSON.parse(text) as Frame;
    expect(frame).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(frame.error).toMatchObject({ message: expect.stringContaining('transcript_ready') });
    expect('request_id' in frame).toBe(false);
  });
});

describe('a session of 20,000 records with the same uuid', () => {
  const home = tempHome();
  const sid = '0c0c0c0c-0000-4000-8000-000000000c0d';
  const dir = join(home, '.claude/projects/-tmp-copies');
  const path = join(dir, `${sid}.jsonl`);
  const record = (text: string, uuid = 'same') =>
    `${JSON.stringify({
      type: 'user',
      uuid,
      parentUuid: 'same',
      sessionId: sid,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: text },
    })}\n`;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, record('again').repeat(20_000));
    server = await serve(homeEnv(home));
    client = await Client.open(server);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('streams a line appended to it within seconds, answering other requests meanwhile', {
    timeout: 60_000,
  }, async () => {
    const topic = `session:claude-code:${sid}`;
    expect(await client.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
    await client.until(
      (f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
      30_000,
    );
    const started = performance.now();
    appendFileSync(path, record('one more line', 'fresh'));
    const ping = client.request('ping');
    await client.until((f) => JSON.stringify(f.slice(-20)).includes('one more line'), 30_000);
    expect(await ping).toMatchObject({ ok: true });
    // A quadratic reload of this file took half a minute.
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});

describe('sessions with timestamps and counts outside the contract', () => {
  const home = tempHome();
  const sessions = writeOddNumberSessions(home);
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await serve(homeEnv(home));
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it.each([
    ['claude-code', sessions.claude.id],
    ['gemini-cli', sessions.gemini.id],
    ['codex', sessions.codex.id],
  ])('streams, summarizes and reads the %s session in frames the protocol accepts', async (agent, sid) => {
    const topic = `session:${agent}:${sid}`;
    expect(await client.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
    await client.until((f) => f.some((x) => x.sessionId === sid && x.type === 'transcript_ready'));
    const ready = client.frames.find((f) => f.sessionId === sid && f.type === 'transcript_ready')!;
    const history = JSON.stringify(ready.history);
    expect(history).toContain('reply 4');
    expect(history).toContain('the last reply');
    client.assertValid();
    // The server checks each reply against its op's schema: a broken one would be an internal_error.
    expect(await client.request('session_summary_read', { sid, agent })).toMatchObject({ ok: true });
    const items = await client.request('transcript_items_read', { sid, agent });
    expect(items).toMatchObject({ ok: true });
    expect(JSON.stringify(items.items)).toContain('the last reply');
    const list = await client.request('session_list', {});
    expect((list.sessions as { sid: string }[]).some((s) => s.sid === sid)).toBe(true);
  });
});

describe('arguments no session can answer', () => {
  const home = tempHome();
  writeOddNumberSessions(home);
  const log: string[] = [];
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await serve(homeEnv(home), { log: (line) => log.push(line) });
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it.each([
    ['a query with a NUL character', { query: 'reply\u0000 4' }, '/query'],
    ['a query of NUL characters only', { query: '\u0000\u0000' }, '/query'],
    ['a cursor past every safe integer', { query: 'reply', cursor: 'h:99999999999999999999' }, '/cursor'],
    ['a cursor of a huge exponent', { query: 'reply', cursor: `h:${'9'.repeat(400)}` }, '/cursor'],
  ])('refuses %s as invalid arguments, naming the field, with nothing logged', async (_what, args, field) => {
    const reply = await client.request('session_search', args);
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_args', field } });
    expect((reply.error as { message: string }).message).not.toMatch(/\n\s+at /);
    expect(log.filter((l) => l.includes('failed'))).toEqual([]);
  });

  it.each([
    ['session_list', { cursor: 'o:99999999999999999999' }],
    [
      'transcript_items_read',
      { sid: '0a0a0a0a-0000-4000-8000-0000000000dd', cursor: 'i:99999999999999999999' },
    ],
  ])('refuses a %s cursor past every safe integer', async (op, args) => {
    expect(await client.request(op, args)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/cursor' },
    });
  });

  it('still finds what an odd query with quotes and operators names', async () => {
    for (const query of ['"reply', 'reply AND', '*', 'NEAR(', 'reply) OR (', '-', '"']) {
      const reply = await client.request('session_search', { query });
      expect(reply.ok, `${query}: ${JSON.stringify(reply.error)}`).toBe(true);
    }
    expect(log.filter((l) => l.includes('failed'))).toEqual([]);
  });
});

describe('stream frames of a call recorded without an id', () => {
  it('carry the event’s id, so every frame validates, a result of no call included', () => {
    const session = join(tempHome(), '0f0f0f0f-0000-4000-8000-0000000000ca.jsonl');
    const env = { sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };
    const lines = [
      { ...env, type: 'user', uuid: 'u1', message: { role: 'user', content: 'go' } },
      // A result of no call at all, also without an id.
      {
        ...env,
        type: 'user',
        uuid: 'u0',
        message: { role: 'user', content: [{ type: 'tool_result', content: 'lost' }] },
      },
      {
        ...env,
        type: 'assistant',
        uuid: 'a1',
        requestId: 'r1',
        message: {
          id: 'm1',
          model: 'x',
          role: 'assistant',
          content: [{ type: 'tool_use', name: 'Bash', input: {} }],
        },
      },
      {
        ...env,
        type: 'user',
        uuid: 'u2',
        message: { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] },
      },
    ];
    const data = new TextEncoder().encode(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const translated = claudeCodeAdapter.translate([{ path: session, data }]);
    if (!translated.ok) throw new Error(translated.error.message);
    const t = finishTranscript('claude-code', translated.value);
    const builder = new FrameBuilder(t, 'sid', itemsByEvent(laneItems(t)));
    const frames = t.events.flatMap((e, seq) => builder.frames(e, seq));
    expect(frames.filter((f) => f.type === 'tool_call' || f.type === 'tool_result')).toHaveLength(3);
    for (const f of frames) expect(validate(SessionStreamFrame, f)).toMatchObject({ ok: true });
  });
});
