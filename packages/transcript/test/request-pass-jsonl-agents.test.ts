// The request passes of Gemini CLI, Qwen Code, pi and Copilot CLI give the requests of the full
// translation: the same requests in the same order, with the same times, models and tokens, and the
// same folder and title. Checked on every corpus sample of these agents, whole and cut short at and
// inside every line, through the session reader on homes that hold them, and on files made to reach
// each rule.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionAdapter, SourceFile } from '../src/adapter.js';
import { copilotCliAdapter } from '../src/adapters/copilot-cli/index.js';
import { copilotRequests } from '../src/adapters/copilot-cli/requests.js';
import { geminiCliAdapter } from '../src/adapters/gemini-cli/index.js';
import { geminiRequests } from '../src/adapters/gemini-cli/requests.js';
import { piAdapter } from '../src/adapters/pi/index.js';
import { piRequests } from '../src/adapters/pi/requests.js';
import { qwenCodeAdapter } from '../src/adapters/qwen-code/index.js';
import { qwenRequests } from '../src/adapters/qwen-code/requests.js';
import { listSessions, loadTranscript, type SessionHead, type SessionPlatform } from '../src/index.js';
import { splitLines } from '../src/lines.js';
import { finishTranscript } from '../src/load.js';
import { passRequests, sessionRequestsRead, transcriptRequests } from '../src/request-pass.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';

type Pass = typeof qwenRequests;

/** What the full translation gives for the files, or 'unsure' where it fails (the pass leaves those to it). */
function fullRequests(adapter: SessionAdapter, files: readonly SourceFile[]) {
  const translated = adapter.translate(files);
  return translated.ok ? transcriptRequests(finishTranscript(adapter.id, translated.value)) : 'unsure';
}

const filesUnder = (dir: string, ext: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();

/** The file cut at the end of each line and inside it (of every `every`th line). */
function* cuts(data: Uint8Array, every = 1): Generator<{ data: Uint8Array; where: string }> {
  for (const span of splitLines(data)) {
    if (span.line % every !== 0) continue;
    yield { data: data.subarray(0, span.offset + (span.length >> 1)), where: `inside line ${span.line}` };
    yield { data: data.subarray(0, span.offset + span.length + 1), where: `after line ${span.line}` };
  }
}

const AGENTS: { adapter: SessionAdapter; pass: Pass; samples: () => string[] }[] = [
  {
    adapter: qwenCodeAdapter,
    pass: qwenRequests,
    samples: () => filesUnder(corpusPath('more', 'qwen'), /\.jsonl$/),
  },
  {
    adapter: geminiCliAdapter,
    pass: geminiRequests,
    samples: () => [
      ...filesUnder(corpusPath('gemini'), /\.json$/),
      ...filesUnder(corpusPath('more', 'gemini'), /\.jsonl?$/),
    ],
  },
  { adapter: piAdapter, pass: piRequests, samples: () => filesUnder(corpusPath('more', 'pi'), /\.jsonl$/) },
  {
    adapter: copilotCliAdapter,
    pass: copilotRequests,
    samples: () => filesUnder(corpusPath('more', 'copilot'), /\.jsonl$/),
  },
];

describe.skipIf(!corpus)('the request passes of the JSONL agents on the corpus', () => {
  for (const { adapter, pass, samples } of AGENTS) {
    it(`${adapter.id}: equal the full translation on every sample, whole and cut short`, () => {
      const paths = samples();
      expect(paths.length).toBeGreaterThan(0);
      let requests = 0;
      for (const path of paths) {
        const data = readFileSync(path);
        const full = fullRequests(adapter, [{ path, data }]);
        expect(pass([{ path, data }]), path).toEqual(full);
        if (full !== 'unsure') requests += full.requests.length;
        // A legacy document is translated whole at each cut: a cut every few of its many lines.
        for (const cut of cuts(data, path.endsWith('.json') ? 5 : 1))
          expect(pass([{ path, data: cut.data }]), `${path} ${cut.where}`).toEqual(
            fullRequests(adapter, [{ path, data: cut.data }]),
          );
      }
      expect(requests).toBeGreaterThan(0);
    });
  }

  it('answer for every session of the homes that hold the samples, as loading each session does', async () => {
    const counted: string[] = [];
    const home = tempHome();
    const chats = join(home, '.qwen', 'projects', '-tmp-project', 'chats');
    mkdirSync(chats, { recursive: true });
    for (const path of AGENTS[0]!.samples()) cpSync(path, join(chats, path.split('/').at(-1)!));
    const gemini = join(home, '.gemini', 'tmp', 'project', 'chats');
    mkdirSync(gemini, { recursive: true });
    cpSync(
      corpusPath('more', 'gemini', 'jsonl_v040.jsonl'),
      join(gemini, 'session-2026-04-29T21-39-aaaa0001.jsonl'),
    );
    cpSync(
      corpusPath('more', 'gemini', 'large.json'),
      join(gemini, 'session-2025-12-16T23-47-b4f17607.json'),
    );
    const pi = join(home, '.pi', 'agent', 'sessions', '--tmp-project--');
    mkdirSync(pi, { recursive: true });
    cpSync(
      corpusPath('more', 'pi', 'small.jsonl'),
      join(pi, '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl'),
    );
    for (const path of AGENTS[3]!.samples()) {
      const name = path.endsWith('/events.jsonl')
        ? path.split('/').at(-2)!
        : path
            .split('/')
            .at(-1)!
            .replace(/\.jsonl$/, '');
      const dir = join(home, '.copilot', 'session-state', `${name}-copy`);
      mkdirSync(dir, { recursive: true });
      cpSync(path, join(dir, 'events.jsonl'));
    }
    for (const platform of [tempPlatform(home), corpusPlatform()]) {
      const heads: SessionHead[] = [];
      for await (const entry of listSessions(platform)) if (!('ref' in entry)) heads.push(entry);
      const mine = heads.filter((h) => AGENTS.some((a) => a.adapter.id === h.agent));
      expect(mine.length).toBeGreaterThan(0);
      counted.push(...mine.map((h) => h.agent));
      for (const h of mine) {
        const target = { path: h.path, agent: h.agent, sessionId: h.id };
        const loaded = await loadTranscript(platform, target);
        if (!loaded.ok) throw new Error(`${h.path}: ${loaded.error.message}`);
        // The pass answers: the session is not left to a full load.
        expect(await passRequests(platform, target), h.path).toEqual(transcriptRequests(loaded.value));
      }
    }
    expect(new Set(counted)).toEqual(new Set(AGENTS.map((a) => a.adapter.id)));
  });
});

const lines = (...records: unknown[]): Uint8Array =>
  Buffer.from(`${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`);

describe('the Qwen Code request pass on records that reach each rule', () => {
  const at = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000Z`;
  const rec = (uuid: string, type: string, s: number, more: Record<string, unknown> = {}) => ({
    uuid,
    parentUuid: null,
    sessionId: 'qwen-made',
    timestamp: at(s),
    type,
    cwd: '/p',
    version: '0.1',
    ...more,
  });
  const usage = (prompt: number, out: number) => ({
    promptTokenCount: prompt,
    candidatesTokenCount: out,
    totalTokenCount: prompt + out,
  });
  const path = '/chats/019f0000-0000-7000-8000-0000000000aa.jsonl';
  const same = (data: Uint8Array) => {
    const full = fullRequests(qwenCodeAdapter, [{ path, data }]);
    expect(qwenRequests([{ path, data }])).toEqual(full);
    return full;
  };

  it('reads usage, a title and glued records, and a name spelled with escapes', () => {
    const full = same(
      lines(
        rec('u1', 'user', 0, { cwd: undefined, message: { role: 'user', parts: [{ text: 'go' }] } }),
        rec('a1', 'assistant', 1, { model: 'qwen3', usageMetadata: usage(10, 2) }),
        // Two records on one line, the second with usage.
        JSON.stringify(rec('u2', 'user', 2, { message: { parts: [{ text: 'more' }] } })) +
          JSON.stringify(rec('a2', 'assistant', 3, { model: 'qwen3', usageMetadata: usage(20, 4) })),
        // The member's name with its letters escaped: JSON reads it as usageMetadata all the same.
        JSON.stringify(rec('a3', 'assistant', 4, { model: 'qwen3', usageMetadata: usage(30, 6) })).replace(
          '"usageMetadata"',
          '"usage\\u004detadata"',
        ),
        rec('s1', 'system', 5, { subtype: 'custom_title', systemPayload: { customTitle: 'named' } }),
        // A later title whose subtype is spelled with an escape: it is the title.
        JSON.stringify(
          rec('s2', 'system', 6, { subtype: 'custom_title', systemPayload: { customTitle: 'renamed' } }),
        ).replace('"custom_title"', '"cust\\u006fm_title"'),
        // No model, or all counts zero: no request.
        rec('a4', 'assistant', 7, { usageMetadata: usage(5, 5) }),
        rec('a5', 'assistant', 8, { model: 'qwen3', usageMetadata: usage(0, 0) }),
        '{"uuid":"broken',
      ),
    );
    if (full === 'unsure') throw new Error('the made file failed to translate');
    expect(full.requests.map((r) => r.usage.inputTokens)).toEqual([10, 20, 30]);
    expect(full.title).toBe('renamed');
    expect(full.cwd).toBe('/p');
  });

  it('leaves a file whose first record is not Qwen Code to the full load, which says why', async () => {
    expect(
      same(lines({ hello: 'world' }, rec('a1', 'assistant', 1, { model: 'q', usageMetadata: usage(1, 1) }))),
    ).toBe('unsure');
    const home = tempHome();
    const chats = join(home, '.qwen', 'projects', '-p', 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, '019f0000-0000-7000-8000-0000000000ab.jsonl');
    writeFileSync(file, lines({ hello: 'world' }));
    const platform: SessionPlatform = tempPlatform(home);
    const target = { path: file, agent: 'qwen-code', sessionId: '019f0000-0000-7000-8000-0000000000ab' };
    const read = await sessionRequestsRead(platform, target);
    const loaded = await loadTranscript(platform, target);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toEqual(!loaded.ok && loaded.error);
  });
});

describe('the Gemini CLI request pass on files that reach each rule', () => {
  const at = (s: number) => `2026-04-29T21:39:${String(s).padStart(2, '0')}.000Z`;
  const meta = {
    sessionId: 'made-session',
    projectHash: 'h',
    startTime: at(0),
    lastUpdated: at(0),
    kind: 'main',
  };
  const reply = (id: string, s: number, input: number, more: Record<string, unknown> = {}) => ({
    id,
    timestamp: at(s),
    type: 'gemini',
    content: 'ok',
    tokens: { input, output: 1, cached: 0, thoughts: 0, tool: 0, total: input + 1 },
    model: 'gemini-3-flash-preview',
    ...more,
  });
  const prompt = (id: string, s: number) => ({
    id,
    timestamp: at(s),
    type: 'user',
    content: [{ text: 'go' }],
  });
  const same = (files: SourceFile[]) => {
    const full = fullRequests(geminiCliAdapter, files);
    expect(geminiRequests(files)).toEqual(full);
    if (full === 'unsure') throw new Error('the made files failed to translate');
    return full;
  };
  const inputs = (r: ReturnType<typeof same>) => r.requests.map((q) => q.usage.inputTokens);

  it('keeps the last write of a message at its first place, and drops what a rewind drops', () => {
    const full = same([
      {
        path: '/chats/session-2026-04-29T21-39-made0001.jsonl',
        data: lines(
          meta,
          prompt('p1', 1),
          reply('r1', 2, 100),
          prompt('p2', 3),
          // r1 written again with more tokens: counted once, with these, before r2.
          reply('r1', 4, 150),
          reply('r2', 5, 200),
          reply('r3', 6, 300),
          { $rewindTo: 'r3' },
          reply('r4', 7, 400, { tokens: 'none' }),
          reply('r5', 8, 500),
          { $set: { summary: 'the title', directories: ['/work/here', '/other'] } },
        ),
      },
    ]);
    expect(inputs(full)).toEqual([150, 200, 500]);
    expect(full.title).toBe('the title');
    expect(full.cwd).toBe('/work/here');
  });

  it('drops set-up messages a start checkpoint leaves out, and keeps those a later one shadows', () => {
    const full = same([
      {
        path: '/chats/session-2026-04-29T21-39-made0002.jsonl',
        data: lines(
          meta,
          { $set: { messages: [reply('s1', 1, 10), reply('s2', 1, 20)] } },
          // A second start checkpoint without s2: s2 is gone.
          { $set: { messages: [reply('s1', 1, 10)] } },
          prompt('p1', 2),
          reply('r1', 3, 100),
          // A later checkpoint keeps r1, shadows s1 and p1, and brings in a message of its own.
          { $set: { messages: [reply('r1', 3, 999), reply('c1', 4, 40), reply('c1', 4, 41)] } },
          reply('r2', 5, 200),
        ),
      },
    ]);
    expect(inputs(full)).toEqual([10, 100, 40, 200]);
  });

  it("reads a subagent's file after the main one, and the folder and title from the main one only", () => {
    const full = same([
      {
        path: '/chats/session-2026-04-29T21-39-made0003.json',
        data: Buffer.from(
          JSON.stringify(
            {
              ...meta,
              summary: 'main',
              directories: ['/m'],
              messages: [prompt('p1', 1), reply('r1', 2, 100)],
            },
            null,
            2,
          ),
        ),
      },
      {
        path: '/chats/made-session/sub.jsonl',
        data: lines({ ...meta, sessionId: 'sub', kind: 'subagent' }, reply('x1', 3, 7), {
          $set: { summary: 'sub', directories: ['/s'] },
        }),
      },
    ]);
    expect(inputs(full)).toEqual([100, 7]);
    expect(full).toMatchObject({ cwd: '/m', title: 'main' });
  });

  it('reads a legacy document cut short or of another kind as the translation does', () => {
    const doc = JSON.stringify({ ...meta, messages: [reply('r1', 1, 100), reply('r2', 2, 200)] }, null, 2);
    const path = '/chats/session-2026-04-29T21-39-made0004.json';
    expect(inputs(same([{ path, data: Buffer.from(doc.slice(0, doc.indexOf('"r2"'))) }]))).toEqual([100]);
    expect(inputs(same([{ path, data: Buffer.from(doc.replace('"messages"', '"history"')) }]))).toEqual([]);
    expect(inputs(same([{ path, data: Buffer.from('{"sessionId": [1, ') }]))).toEqual([]);
    expect(geminiRequests([{ path, data: Buffer.from('[1, 2]') }])).toBe('unsure');
    expect(geminiRequests([{ path, data: Buffer.from('{"other": 1}') }])).toBe('unsure');
    expect(fullRequests(geminiCliAdapter, [{ path, data: Buffer.from('{"other": 1}') }])).toBe('unsure');
  });
});

describe('the pi request pass on entries that reach each rule', () => {
  const at = (s: number) => `2026-05-12T01:02:${String(s).padStart(2, '0')}.000Z`;
  const header = {
    type: 'session',
    version: 3,
    id: '019e19b4-eb48-746a-aa6b-8dfcfa37954b',
    timestamp: at(0),
    cwd: '/p',
  };
  const answer = (id: string, s: number, input: number, more: Record<string, unknown> = {}) => ({
    type: 'message',
    id,
    parentId: null,
    timestamp: at(s),
    message: {
      role: 'assistant',
      model: 'pi-model',
      content: [{ type: 'text', text: 'ok' }],
      usage: { input, output: 1, cacheRead: 2, cacheWrite: 0, totalTokens: input + 3 },
      ...more,
    },
  });
  const path = '/sessions/--p--/2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl';
  const same = (data: Uint8Array) => {
    const full = fullRequests(piAdapter, [{ path, data }]);
    expect(piRequests([{ path, data }])).toEqual(full);
    return full;
  };

  it('counts an entry written twice byte for byte once, and two entries sharing an id twice', () => {
    const full = same(
      lines(
        header,
        { ...header, cwd: '/later' },
        answer('a1', 1, 10),
        answer('a1', 1, 10),
        answer('a2', 2, 20),
        answer('a2', 3, 21),
        // No model, no time of its own (the message's counts), or nothing used: the same as translate.
        answer('a3', 4, 30, { model: undefined }),
        {
          ...answer('a4', 5, 40),
          timestamp: undefined,
          message: { ...answer('a4', 5, 40).message, timestamp: Date.parse(at(5)) },
        },
        answer('a5', 6, 0, { usage: { input: 0, output: 0 } }),
        { type: 'session_info', id: 'i1', name: ' named ' },
        { type: 'message', id: 'u1', message: { role: 'user', content: 'hi' } },
        { type: 'other', id: 'o1', message: answer('o1', 7, 70).message },
        '{"type":"message", broken',
      ),
    );
    if (full === 'unsure') throw new Error('the made file failed to translate');
    expect(full.requests.map((r) => r.usage.inputTokens)).toEqual([12, 22, 23, 42]);
    expect(full).toMatchObject({ cwd: '/p', title: 'named' });
    const cleared = same(
      lines(
        header,
        { type: 'session_info', id: 'i1', name: 'x' },
        { type: 'session_info', id: 'i2', name: '' },
      ),
    );
    expect(cleared !== 'unsure' && cleared.title).toBeUndefined();
  });

  it('leaves a file without a pi header to the full load', () => {
    expect(same(lines(answer('a1', 1, 10)))).toBe('unsure');
  });
});

describe('the Copilot CLI request pass on events that reach each rule', () => {
  const at = (s: number) => `2026-06-01T10:00:${String(s).padStart(2, '0')}.000Z`;
  let n = 0;
  const event = (type: string, s: number, data: Record<string, unknown>, id = `e${n++}`) => ({
    type,
    id,
    parentId: null,
    timestamp: at(s),
    data,
  });
  const counts = (input: number, output: number) => ({
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  const record = (s: number, model: string, input: number, output: number) =>
    event('session.usage_record', s, { usage: { model, ...counts(input, output) } });
  const shutdown = (s: number, id: string, rows: Record<string, [number, number]>) =>
    event(
      'session.shutdown',
      s,
      {
        modelMetrics: Object.fromEntries(
          Object.entries(rows).map(([model, [i, o]]) => [
            model,
            { requests: { count: 1 }, usage: counts(i, o) },
          ]),
        ),
      },
      id,
    );
  const path = '/session-state/0c0ffee0-0000-4000-8000-00000000c0c0/events.jsonl';
  const same = (data: Uint8Array) => {
    const full = fullRequests(copilotCliAdapter, [{ path, data }]);
    expect(copilotRequests([{ path, data }])).toEqual(full);
    if (full === 'unsure') throw new Error('the made file failed to translate');
    return full;
  };

  it("counts usage records, and of a shutdown only what its process's records left out", () => {
    const full = same(
      lines(
        event('session.start', 0, { sessionId: 's', context: { cwd: '/w' } }),
        record(1, 'gpt-5', 100, 10),
        record(2, 'gpt-5', 200, 20),
        // The totals count 50 and 5 more than the records: that is a request of its own.
        shutdown(3, 'sd1', { 'gpt-5': [350, 35], 'claude-x': [10, 1] }),
        event('session.resume', 4, { context: { cwd: '/elsewhere' } }),
        // A process without records: its totals are its requests.
        shutdown(5, 'sd2', { 'gpt-5': [70, 7] }),
        // The same shutdown written again: its later write stands, the earlier one counts nothing.
        shutdown(6, 'sd2', { 'gpt-5': [80, 8] }),
        event('assistant.message_delta', 7, { deltaContent: 'x' }),
      ),
    );
    expect(full.requests.map((r) => [r.model, r.usage.inputTokens])).toEqual([
      ['gpt-5', 100],
      ['gpt-5', 200],
      ['gpt-5', 50],
      ['claude-x', 10],
      ['gpt-5', 80],
    ]);
    expect(full.cwd).toBe('/w');
  });

  it('leaves a file whose first line is no Copilot CLI event to the full load', () => {
    const data = lines({ hello: 1 }, record(1, 'gpt-5', 1, 1));
    expect(copilotRequests([{ path, data }])).toBe('unsure');
    expect(fullRequests(copilotCliAdapter, [{ path, data }])).toBe('unsure');
  });
});
