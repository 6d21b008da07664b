// The summary passes of Qwen Code, pi and Copilot CLI give the fold of the full translation,
// whether fed a session whole, a line at a time, from chunks that cut lines, or a session cut short
// at any record or inside one: on every corpus sample of each agent (schema drift included) and on
// hand-made records that reach each rule (failed tools, compactions, usage, records that make no event).
import { isUtf8 } from 'node:buffer';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionAdapter, SourceFile } from '../../src/adapter.js';
import { copilotCliAdapter } from '../../src/adapters/copilot-cli/index.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { qwenCodeAdapter } from '../../src/adapters/qwen-code/index.js';
import { splitLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import type { SessionSummaryWithPrompts } from '../../src/model.js';
import { readLines } from '../../src/read.js';
import type { Result } from '../../src/result.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus, corpusPath } from '../corpus.js';
import { tempHome, tempPlatform } from '../homes.js';

type Outcome = Result<SessionSummaryWithPrompts, { message: string }>;

function fold(adapter: SessionAdapter, files: readonly SourceFile[]): Outcome {
  const r = adapter.translate(files);
  if (!r.ok) return { ok: false, error: { message: r.error.message } };
  return { ok: true, value: foldTranscript(finishTranscript(adapter.id, r.value), { prompts: true }) };
}

const outcome = (r: Result<SessionSummaryWithPrompts, { message: string }>): Outcome =>
  r.ok ? r : { ok: false, error: { message: r.error.message } };

/** The pass fed line by line from the bytes held whole. */
function passed(adapter: SessionAdapter, files: readonly SourceFile[]): Outcome {
  const pass = adapter.summaryPass!(files.map((f) => f.path));
  for (const [i, f] of files.entries()) {
    pass.startFile(i, f.wellFormedUtf8 === true);
    for (const span of splitLines(f.data)) {
      const failure = pass.line(f.data, span);
      if (failure) return { ok: false, error: { message: failure.message } };
    }
  }
  return outcome(pass.finish());
}

/** The pass fed from files read in chunks of `chunk` bytes, as summarizeSession streams a large one. */
async function streamed(
  adapter: SessionAdapter,
  files: readonly SourceFile[],
  chunk: number,
): Promise<Outcome> {
  const dir = tempHome();
  const platform = tempPlatform(dir);
  const paths = files.map((f, i) => {
    const copy = join(dir, `${i}-${f.path.slice(f.path.lastIndexOf('/') + 1)}`);
    writeFileSync(copy, f.data);
    return copy;
  });
  const pass = adapter.summaryPass!(files.map((f) => f.path));
  for (const [i, path] of paths.entries()) {
    pass.startFile(i, false);
    for await (const { data, span } of readLines(platform, path, chunk)) {
      const failure = pass.line(data, span, isUtf8(data.subarray(span.offset, span.offset + span.length)));
      if (failure) return { ok: false, error: { message: failure.message } };
    }
  }
  return outcome(pass.finish());
}

/** Whole, line by line (as a Buffer marked well-formed and as plain bytes) and streamed all agree with the fold. */
async function expectAgree(adapter: SessionAdapter, files: SourceFile[], what: string): Promise<Outcome> {
  const want = fold(adapter, files);
  expect(outcome(adapter.summarize!(files)), `${what}: whole`).toEqual(want);
  const marked = files.map((f) => ({
    ...f,
    data: Buffer.from(f.data),
    ...(isUtf8(f.data) ? { wellFormedUtf8: true as const } : {}),
  }));
  expect(passed(adapter, marked), `${what}: line by line`).toEqual(want);
  expect(passed(adapter, files), `${what}: line by line, plain bytes`).toEqual(want);
  for (const chunk of [7, 97, 4096])
    expect(await streamed(adapter, files, chunk), `${what}: chunks of ${chunk}`).toEqual(want);
  return want;
}

/** The session cut after each line, and inside each line. */
function cuts(file: SourceFile): { data: Uint8Array; where: string }[] {
  const out: { data: Uint8Array; where: string }[] = [];
  for (const span of splitLines(file.data)) {
    out.push({
      data: file.data.subarray(0, span.offset + (span.length >> 1)),
      where: `inside line ${span.line}`,
    });
    out.push({
      data: file.data.subarray(0, span.offset + span.length + 1),
      where: `after line ${span.line}`,
    });
  }
  return out;
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath, e.name))
    .sort();

const AGENTS: { adapter: SessionAdapter; samples: () => string[] }[] = [
  { adapter: qwenCodeAdapter, samples: () => filesUnder(corpusPath('more', 'qwen')) },
  { adapter: piAdapter, samples: () => filesUnder(corpusPath('more', 'pi')) },
  { adapter: copilotCliAdapter, samples: () => filesUnder(corpusPath('more', 'copilot')) },
];

describe.skipIf(!corpus)('the JSONL agents’ summary passes on the corpus', () => {
  for (const { adapter, samples } of AGENTS) {
    it(`${adapter.id}: equal the fold on every sample, whole, line by line and in chunks`, async () => {
      const paths = samples();
      expect(paths.length).toBeGreaterThan(0);
      let counted = 0;
      for (const path of paths) {
        const want = await expectAgree(adapter, [{ path, data: readFileSync(path) }], path);
        if (want.ok && (want.value.turns ?? 0) > 0) counted++;
      }
      expect(counted).toBeGreaterThan(0);
    });

    it(`${adapter.id}: equal the fold on every sample cut short at and inside each line`, async () => {
      for (const path of samples()) {
        const data = readFileSync(path);
        for (const cut of cuts({ path, data })) {
          const files = [{ path, data: cut.data }];
          const want = fold(adapter, files);
          expect(outcome(adapter.summarize!(files)), `${path} ${cut.where}`).toEqual(want);
          expect(passed(adapter, files), `${path} ${cut.where}: line by line`).toEqual(want);
        }
      }
    });
  }
});

const lines = (...records: unknown[]): Uint8Array =>
  Buffer.from(`${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`);

/** Every way of feeding `data` agrees with the fold, also cut at and inside each line. */
async function expectAgreeEverywhere(
  adapter: SessionAdapter,
  path: string,
  data: Uint8Array,
): Promise<SessionSummaryWithPrompts> {
  const want = await expectAgree(adapter, [{ path, data }], path);
  for (const cut of cuts({ path, data }))
    expect(outcome(adapter.summarize!([{ path, data: cut.data }])), `${path} ${cut.where}`).toEqual(
      fold(adapter, [{ path, data: cut.data }]),
    );
  if (!want.ok) throw new Error(want.error.message);
  return want.value;
}

describe('the Qwen Code summary pass on records that reach each rule', () => {
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
  const PATH = '/chats/019f0000-0000-7000-8000-0000000000aa.jsonl';

  it('counts prompts, results with errors, usage, compactions, and leaves out records that make no event', async () => {
    const data = lines(
      // UI telemetry makes no event: its time is not the session's start.
      rec('t0', 'system', 1, { subtype: 'ui_telemetry', systemPayload: { uiEvent: {} } }),
      rec('u1', 'user', 5, { message: { role: 'user', parts: [{ text: 'first prompt' }] } }),
      rec('a1', 'assistant', 6, {
        message: {
          role: 'model',
          parts: [{ text: 'thinking', thought: true }, { functionCall: { id: 'c1', name: 'ls', args: {} } }],
        },
        usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 5, cachedContentTokenCount: 40 },
        model: 'qwen3',
      }),
      rec('r1', 'tool_result', 7, {
        message: { role: 'user', parts: [{ functionResponse: { id: 'c1', response: { error: 'boom' } } }] },
        toolCallResult: { callId: 'c1', status: 'error' },
      }),
      rec('r2', 'tool_result', 8, {
        toolCallResult: { callId: 'c2', status: 'error', resultDisplay: 'denied' },
      }),
      // An empty prompt and an assistant record with nothing to show make no event.
      rec('u2', 'user', 0, { message: { role: 'user', parts: [] } }),
      `${JSON.stringify(rec('a2', 'assistant', 9, { message: { role: 'model', parts: [{ text: 'ok' }] }, usageMetadata: { promptTokenCount: 0, candidatesTokenCount: 0 } }))}${JSON.stringify(rec('u3', 'user', 10, { subtype: 'mid_turn_user_message', message: { role: 'user', parts: [{ text: 'glued prompt' }] } }))}`,
      rec('s1', 'system', 11, {
        subtype: 'chat_compression',
        systemPayload: { info: { originalTokenCount: 9, newTokenCount: 3 } },
      }),
      rec('x1', 'brand_new_type', 12),
      '{"not": "a record"}',
      '{"broken": ',
      rec('a3', 'assistant', 59, { message: { role: 'model', parts: [{ text: '' }] } }),
    );
    const s = await expectAgreeEverywhere(qwenCodeAdapter, PATH, data);
    expect(s).toMatchObject({
      turns: 2,
      failedTools: 2,
      requests: 2,
      compactions: 1,
      inputTokens: 100,
      durationMs: 7000,
    });
    expect(s.prompts).toEqual(['first prompt', 'glued prompt']);
  });

  it('refuses a file whose first record is not a Qwen Code record, as the translation does', () => {
    const data = lines(
      { hello: 'world' },
      rec('u1', 'user', 1, { message: { role: 'user', parts: [{ text: 'x' }] } }),
    );
    const want = fold(qwenCodeAdapter, [{ path: PATH, data }]);
    expect(want.ok).toBe(false);
    expect(outcome(qwenCodeAdapter.summarize!([{ path: PATH, data }]))).toEqual(want);
  });
});

describe('the Copilot CLI summary pass on records that reach each rule', () => {
  let n = 0;
  const ev = (type: string, s: number, data: Record<string, unknown> = {}, id = `e${++n}`) => ({
    type,
    data,
    id,
    timestamp: `2026-03-01T10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`,
    parentId: null,
  });
  const usage = (model: string, input: number, output: number, cacheRead = 0) => ({
    usage: {
      model,
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: 0,
    },
  });
  const shutdown = (s: number, id: string, rows: Record<string, [number, number, number?]>) =>
    ev(
      'session.shutdown',
      s,
      {
        modelMetrics: Object.fromEntries(
          Object.entries(rows).map(([m, [i, o, c = 0]]) => [
            m,
            {
              requests: { count: 1, cost: 1 },
              usage: { inputTokens: i, outputTokens: o, cacheReadTokens: c, cacheWriteTokens: 0 },
            },
          ]),
        ),
      },
      id,
    );
  const PATH = '/session-state/11111111-2222-4333-8444-555555555555/events.jsonl';

  it('counts usage records, the shutdown remainder, a repeated shutdown, subagents and late-settled tool starts', async () => {
    const data = lines(
      // A start that a later message asks for makes no event: its time is not the session's start.
      ev('tool.execution_start', 0, { toolCallId: 'c1', toolName: 'shell', arguments: {} }),
      ev('session.start', 10, {
        sessionId: '11111111-2222-4333-8444-555555555555',
        copilotVersion: '1.0.102',
        context: { cwd: '/p' },
      }),
      ev('user.message', 11, { content: 'first prompt' }),
      ev('assistant.message', 12, {
        content: '',
        toolRequests: [{ toolCallId: 'c1', name: 'shell', arguments: {} }],
      }),
      ev('session.usage_record', 13, usage('gpt-5', 100, 10, 60)),
      ev('tool.execution_complete', 14, { toolCallId: 'c1', success: false, error: { message: 'no' } }),
      ev('user.message', 15, { content: 'brief', parentToolCallId: 'task-1' }),
      ev('session.usage_record', 16, { ...usage('gpt-5', 50, 5), parentToolCallId: 'task-1' }),
      ev('assistant.reasoning', 17, { content: 'hmm' }),
      // The same reasoning again, no text and no calls: no event.
      ev('assistant.message', 90, { reasoningText: 'hmm', content: '' }),
      ev('session.truncation', 18, { tokensRemovedDuringTruncation: 0, messagesRemovedDuringTruncation: 0 }),
      ev('session.truncation', 19, {
        tokensRemovedDuringTruncation: 500,
        preTruncationTokensInMessages: 900,
      }),
      ev('session.compaction_complete', 20, { preCompactionTokens: 800, postCompactionTokens: 100 }),
      ev('assistant.message_delta', 95, { deltaContent: 'x' }),
      // Totals beyond the records: 7 more input tokens of gpt-5, and a model no record counted.
      shutdown(21, 'shut-1', { 'gpt-5': [157, 15, 60], 'claude-x': [30, 3] }),
      ev('session.resume', 22, { context: { cwd: '/p' } }),
      ev('user.message', 23, { content: 'second prompt' }),
      ev('session.usage_record', 24, usage('gpt-5', 200, 20)),
      shutdown(25, 'shut-2', { 'gpt-5': [205, 20] }),
      // Written again under the same id: it takes back the first write's usage.
      shutdown(26, 'shut-2', { 'gpt-5': [210, 20] }),
      // No message asks for this call: its start is a call of its own, and the session's last time.
      ev('tool.execution_start', 27, { toolCallId: 'c-alone', toolName: 'shell' }),
    );
    const s = await expectAgreeEverywhere(copilotCliAdapter, PATH, data);
    expect(s).toMatchObject({ turns: 2, failedTools: 1, compactions: 2, subagents: 1, durationMs: 17_000 });
    expect(s.inputTokens).toBe(100 + 50 + 7 + 30 + 200 + 10);
    expect(s.prompts).toEqual(['first prompt', 'second prompt']);
  });

  it('counts requests when every token comes from a usage record', async () => {
    const data = lines(
      ev('session.start', 1, { sessionId: 'x', context: { cwd: '/p' } }),
      ev('user.message', 2, { content: 'p' }),
      ev('session.usage_record', 3, usage('gpt-5', 10, 1)),
      ev('session.usage_record', 4, usage('gpt-5', 20, 2)),
      shutdown(5, 'shut', { 'gpt-5': [30, 3] }),
    );
    const s = await expectAgreeEverywhere(copilotCliAdapter, PATH, data);
    expect(s).toMatchObject({ requests: 2, inputTokens: 30, outputTokens: 3, contextShape: [10, 20] });
  });

  it('takes the main lane from session.start when the file name is no session id', async () => {
    const data = lines(
      ev('session.start', 1, { sessionId: '99999999-2222-4333-8444-555555555555' }),
      ev('user.message', 2, { content: 'p' }),
      ev('user.message', 3, { content: 'brief', parentToolCallId: 'call-1' }),
      ev('session.usage_record', 4, usage('gpt-5', 10, 1)),
    );
    const s = await expectAgreeEverywhere(copilotCliAdapter, '/flat/not an id.jsonl', data);
    expect(s).toMatchObject({ turns: 1, subagents: 1, requests: 1 });
  });
});

describe('the pi summary pass on entries that reach each rule', () => {
  const at = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000Z`;
  const entry = (id: string, type: string, s: number | undefined, more: Record<string, unknown> = {}) => ({
    type,
    id,
    parentId: null,
    ...(s === undefined ? {} : { timestamp: at(s) }),
    ...more,
  });
  const assistant = (id: string, s: number, usage: Record<string, number>) =>
    entry(id, 'message', s, {
      message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], model: 'm', usage },
    });
  const PATH = '/sessions/--p--/2026-03-01T10-00-00-000Z_019f0000-0000-7000-8000-0000000000bb.jsonl';

  it('counts prompts, requests, failed results and compactions; a copy of an entry counts once', async () => {
    const twice = assistant('a1', 3, { input: 10, output: 2, cacheRead: 5, cacheWrite: 0, totalTokens: 17 });
    const data = lines(
      {
        type: 'session',
        version: 3,
        id: '019f0000-0000-7000-8000-0000000000bb',
        timestamp: at(1),
        cwd: '/p',
      },
      entry('u1', 'message', 2, {
        message: { role: 'user', content: [{ type: 'text', text: 'first prompt' }] },
      }),
      twice,
      twice,
      // The same id written with other bytes is an entry of its own.
      assistant('a1', 4, { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 }),
      assistant('a2', 5, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 }),
      entry('r1', 'message', 6, {
        message: { role: 'toolResult', toolCallId: 'c', content: 'no', isError: true },
      }),
      entry('u2', 'message', 7, { message: { role: 'user', content: [] } }),
      entry('u3', 'message', undefined, {
        message: { role: 'user', content: 'timed by its message', timestamp: Date.parse(at(8)) },
      }),
      entry('c1', 'compaction', 9, { summary: 's', tokensBefore: 100, firstKeptEntryId: 'u3' }),
      entry('x1', 'brand_new', 10),
      // A message entry without its message makes no event: its time is not the session's end.
      entry('m1', 'message', 59),
      '[1, 2]',
      '{"type": ',
    );
    const s = await expectAgreeEverywhere(piAdapter, PATH, data);
    expect(s).toMatchObject({
      turns: 2,
      requests: 3,
      failedTools: 1,
      compactions: 1,
      inputTokens: 16,
      durationMs: 9000,
    });
    expect(s.prompts).toEqual(['first prompt', 'timed by its message']);
  });

  it('refuses a file that does not start with a session header, as the translation does', () => {
    const data = lines(entry('u1', 'message', 2, { message: { role: 'user', content: 'x' } }));
    const want = fold(piAdapter, [{ path: PATH, data }]);
    expect(want.ok).toBe(false);
    expect(outcome(piAdapter.summarize!([{ path: PATH, data }]))).toEqual(want);
  });
});
