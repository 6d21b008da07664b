// The pi adapter on the corpus sample (read in place, or copied into a scratch home laid out as
// pi's own) and on a branched session written here in pi's format: listing, events, the tree of
// entries and its branches, tool pairing, compactions, usage against counts taken from the lines
// and against ccusage, pointers that read back byte for byte, items, and damaged input.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { builtinSessionAdapters } from '../../src/adapters/index.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { piUsage } from '../../src/adapters/pi/usage.js';
import {
  classifyTranscript,
  foldTranscript,
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  type Transcript,
} from '../../src/index.js';
import { countLines } from '../../src/lines.js';
import { nodePlatform } from '../../src/platform-node.js';
import { corpus, corpusPath } from '../corpus.js';

const SAMPLE = corpusPath('more', 'pi', 'small.jsonl');
const SID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';
const PROJECT = '--tmp-as-agent-fixture-project--';
const FILE_NAME = `2026-05-12T01-02-27-657Z_${SID}.jsonl`;

function translate(...files: SourceFile[]): TranslatedSession {
  const r = piAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Every line is the source of events or of skipped records, and no line is lost. */
function expectEveryLineAccounted(t: TranslatedSession, file: SourceFile) {
  const lines = new Set([...t.events, ...t.skipped].map((x) => x.source.line));
  expect(lines.size, file.path).toBe(countLines(file.data));
}

/** A scratch home with the sample laid out as `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`. */
function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'cairn-pi-'));
  const dir = join(home, '.pi', 'agent', 'sessions', PROJECT);
  mkdirSync(dir, { recursive: true });
  cpSync(SAMPLE, join(dir, FILE_NAME));
  return home;
}

async function heads(platform: ReturnType<typeof nodePlatform>, agent = 'pi'): Promise<SessionHead[]> {
  const out: SessionHead[] = [];
  for await (const entry of listSessions(platform, { agent })) {
    if ('ref' in entry) throw new Error(entry.error.message);
    out.push(entry);
  }
  return out;
}

// A session as pi writes one, with what the sample lacks: thinking, a tool call and its result, a
// branch (the person went back to an earlier answer), a summary of the abandoned branch, a `!`
// command, an aborted request, a compaction, a name, a label and an extension's entries.
const BRANCHED_ID = '019e2000-0000-7000-8000-0000000000b1';
const at = (s: number) => `2026-05-13T10:00:${String(s).padStart(2, '0')}.000Z`;
const msg = (id: string, parentId: string | null, s: number, message: object) =>
  JSON.stringify({ type: 'message', id, parentId, timestamp: at(s), message });
const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, total: number) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: total,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
});
const answer = (content: object[], u: object, stopReason = 'stop', extra: object = {}) => ({
  role: 'assistant',
  content,
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  usage: u,
  stopReason,
  timestamp: 0,
  ...extra,
});
const BRANCHED_LINES = [
  JSON.stringify({ type: 'session', version: 3, id: BRANCHED_ID, timestamp: at(0), cwd: '/w/project' }),
  JSON.stringify({
    type: 'model_change',
    id: 'm1',
    parentId: null,
    timestamp: at(1),
    provider: 'anthropic',
    modelId: 'claude-sonnet-4-5',
  }),
  msg('u1', 'm1', 2, { role: 'user', content: [{ type: 'text', text: 'Read a.txt' }], timestamp: 0 }),
  msg(
    'a1',
    'u1',
    3,
    answer(
      [
        { type: 'thinking', thinking: 'I should read it.' },
        { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } },
      ],
      usage(100, 20, 900, 50, 1070),
      'toolUse',
    ),
  ),
  msg('r1', 'a1', 4, {
    role: 'toolResult',
    toolCallId: 'toolu_1',
    toolName: 'read',
    content: [{ type: 'text', text: 'hello' }],
    isError: false,
    timestamp: 0,
  }),
  msg('a2', 'r1', 5, answer([{ type: 'text', text: 'It says hello.' }], usage(5, 3, 1000, 0, 1008))),
  // The branch the person later left: a prompt and an aborted answer.
  msg('u2', 'a2', 6, { role: 'user', content: 'Now delete it', timestamp: 0 }),
  msg('a3', 'u2', 7, answer([], usage(0, 0, 0, 0, 0), 'aborted', { errorMessage: 'Request was aborted' })),
  // Back at a2, with a summary of the branch left behind.
  JSON.stringify({
    type: 'branch_summary',
    id: 'b1',
    parentId: 'a2',
    timestamp: at(8),
    fromId: 'a2',
    summary: 'The person asked to delete a.txt, then changed their mind.',
  }),
  msg('x1', 'b1', 9, {
    role: 'bashExecution',
    command: 'ls',
    output: 'a.txt\n',
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 0,
  }),
  msg('u3', 'x1', 10, { role: 'user', content: [{ type: 'text', text: 'Summarize' }], timestamp: 0 }),
  // Only a total: ccusage takes it as output.
  msg('a4', 'u3', 11, answer([{ type: 'text', text: 'Done.' }], { totalTokens: 42 })),
  JSON.stringify({
    type: 'compaction',
    id: 'c1',
    parentId: 'a4',
    timestamp: at(12),
    summary: 'Read a.txt; it says hello.',
    firstKeptEntryId: 'u3',
    tokensBefore: 2000,
  }),
  JSON.stringify({
    type: 'session_info',
    id: 's1',
    parentId: 'c1',
    timestamp: at(13),
    name: 'Reading a.txt',
  }),
  JSON.stringify({
    type: 'label',
    id: 'l1',
    parentId: 's1',
    timestamp: at(14),
    targetId: 'u1',
    label: 'start',
  }),
  JSON.stringify({
    type: 'custom',
    id: 'e1',
    parentId: 'l1',
    timestamp: at(15),
    customType: 'my-ext',
    data: { n: 1 },
  }),
  JSON.stringify({
    type: 'custom_message',
    id: 'e2',
    parentId: 'e1',
    timestamp: at(16),
    customType: 'my-ext',
    content: 'A note from an extension.',
    display: true,
  }),
  JSON.stringify({
    type: 'thinking_level_change',
    id: 't1',
    parentId: 'e2',
    timestamp: at(17),
    thinkingLevel: 'high',
  }),
];
const BRANCHED: SourceFile = {
  path: `/h/.pi/agent/sessions/--w-project--/2026-05-13T10-00-00-000Z_${BRANCHED_ID}.jsonl`,
  data: Buffer.from(`${BRANCHED_LINES.join('\n')}\n`),
};

describe('pi homes', () => {
  const j = (...p: string[]) => p.join('/');
  it('are ~/.pi/agent/sessions, under $PI_CODING_AGENT_DIR when set, with $PI_CODING_AGENT_SESSION_DIR first', () => {
    expect(piAdapter.homes({ env: {}, homeDir: '/u', join: j })).toEqual(['/u/.pi/agent/sessions']);
    expect(piAdapter.homes({ env: { PI_CODING_AGENT_DIR: '/a' }, homeDir: '/u', join: j })).toEqual([
      '/a/sessions',
    ]);
    // A leading ~ is the home folder, as pi expands it.
    expect(piAdapter.homes({ env: { PI_CODING_AGENT_DIR: '~/pa' }, homeDir: '/u', join: j })).toEqual([
      '/u/pa/sessions',
    ]);
    expect(
      piAdapter.homes({
        env: { PI_CODING_AGENT_SESSION_DIR: '~/s', PI_CODING_AGENT_DIR: '' },
        homeDir: '/u',
        join: j,
      }),
    ).toEqual(['/u/s', '/u/.pi/agent/sessions']);
    expect(
      piAdapter.homes({
        env: { PI_CODING_AGENT_SESSION_DIR: '/u/.pi/agent/sessions' },
        homeDir: '/u',
        join: j,
      }),
    ).toEqual(['/u/.pi/agent/sessions']);
  });
});

describe.skipIf(!corpus)('pi on the corpus sample', () => {
  let platform: ReturnType<typeof nodePlatform>;
  let listed: SessionHead[];
  let t: Transcript;
  const file = (): SourceFile => ({ path: SAMPLE, data: readFileSync(SAMPLE) });

  beforeAll(async () => {
    const home = scratchHome();
    platform = nodePlatform({ env: { HOME: home }, homeDir: home });
    listed = await heads(platform);
    const loaded = await loadTranscript(platform, { agent: 'pi', path: listed[0]!.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    t = loaded.value;
  });

  it('lists the session: id from its header, folder, model, first prompt, start and last-record time', () => {
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      agent: 'pi',
      id: SID,
      cwd: '/tmp/as-agent-fixture/project',
      model: 'pi-fixture-model',
      firstPrompt: 'Read hello.py and summarize what it prints without editing files.',
      startedAt: Date.parse('2026-05-12T01:02:27.657Z'),
      lastActivityAt: Date.parse('2026-05-12T01:02:45.843Z'),
    });
  });

  it('lists sessions kept straight in $PI_CODING_AGENT_SESSION_DIR, and under PI_CODING_AGENT_DIR', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-pi-'));
    const own = join(home, 'pi-sessions');
    mkdirSync(own, { recursive: true });
    cpSync(SAMPLE, join(own, FILE_NAME));
    const agentDir = join(home, 'agent-dir');
    mkdirSync(join(agentDir, 'sessions', '--w-project--'), { recursive: true });
    writeFileSync(join(agentDir, 'sessions', '--w-project--', 'notes.txt'), 'not a session');
    writeFileSync(
      join(agentDir, 'sessions', '--w-project--', `2026-05-13T10-00-00-000Z_${BRANCHED_ID}.jsonl`),
      BRANCHED.data,
    );
    const env = { HOME: home, PI_CODING_AGENT_SESSION_DIR: own, PI_CODING_AGENT_DIR: agentDir };
    const found = await heads(nodePlatform({ env, homeDir: home }), 'pi-agent');
    expect(found.map((h) => [h.id, h.title, h.cwd])).toEqual([
      [SID, undefined, '/tmp/as-agent-fixture/project'],
      [BRANCHED_ID, 'Reading a.txt', '/w/project'],
    ]);
  });

  it('detects pi files, and no other agent claims them nor pi another agent’s', () => {
    const f = file();
    expect(builtinSessionAdapters.filter((a) => a.detect(f.path, f.data)).map((a) => a.id)).toEqual(['pi']);
    const others = readdirSync(corpusPath(), { withFileTypes: true, recursive: true })
      .filter((d) => d.isFile() && /\.jsonl?$/.test(d.name) && !d.parentPath.endsWith('/pi'))
      .map((d) => join(d.parentPath, d.name));
    expect(others.length).toBeGreaterThan(10);
    for (const path of others)
      expect(piAdapter.detect(path, readFileSync(path).subarray(0, 128 * 1024)), path).toBe(false);
  });

  it('turns each entry into events on the one lane, chained by parentId', () => {
    expect(t.agents).toEqual([{ id: SID }]);
    expect(t.skipped).toEqual([]);
    expect(t.events.map((e) => `${e.kind}@${e.source.line}`)).toEqual([
      'system@1',
      'system@2',
      'system@3',
      'user@4',
      'assistant@5',
      'request@5',
      'compaction@6',
      'user@7',
      'assistant@8',
      'request@8',
      'compaction@9',
    ]);
    const [header, model, thinking, prompt, text, request, compaction, prompt2] = t.events;
    expect(header!.payload).toMatchObject({ type: 'session_meta', sessionId: SID, version: 3 });
    expect(model!.payload).toMatchObject({ type: 'model_change', modelId: 'pi-fixture-model' });
    expect(thinking!.payload).toMatchObject({ type: 'thinking_level_change', thinkingLevel: 'off' });
    expect(prompt!.payload).toEqual({
      text: 'Read hello.py and summarize what it prints without editing files.',
    });
    expect(text!.payload).toEqual({ text: 'hello.py prints a fixture greeting.' });
    expect(text!.requestId).toBe(request!.id);
    expect(request!.payload).toMatchObject({
      model: 'pi-fixture-model',
      provider: 'pi-fixture',
      stopReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(compaction!.payload).toMatchObject({
      preTokens: 19,
      summary: 'hello.py prints a fixture greeting.',
      firstKeptEntryId: 'f7c7091e',
    });
    // Each entry's first event follows the last event of the entry its parentId names.
    expect(thinking!.parentId).toBe(model!.id);
    expect(prompt!.parentId).toBe(thinking!.id);
    expect(compaction!.parentId).toBe(request!.id);
    expect(prompt2!.parentId).toBe(compaction!.id);
    // The compactions kept everything from the first entry on: nothing is shadowed.
    expect(t.events.filter((e) => e.shadowedBy !== undefined)).toEqual([]);
    expect(t.session).toMatchObject({ id: SID, cwd: '/tmp/as-agent-fixture/project' });
    expect(t.capabilities).toEqual(['requests', 'usage', 'durations', 'compaction', 'compactionTokens']);
    const s = foldTranscript(t, { prompts: true });
    expect(s).toMatchObject({ turns: 2, requests: 2, compactions: 2, inputTokens: 24, outputTokens: 14 });
    // pi records no subagents, hooks or reasoning here: those numbers are absent, not 0.
    expect(s.subagents).toBeUndefined();
  });

  it('counts tokens as the usage lines say, and as ccusage 20.0.24 does', () => {
    let input = 0;
    let output = 0;
    for (const line of readFileSync(SAMPLE, 'utf8').split('\n')) {
      if (line === '') continue;
      const r = JSON.parse(line) as {
        type: string;
        message?: { role: string; usage?: Record<string, number> };
      };
      const u = r.message?.role === 'assistant' ? r.message.usage : undefined;
      if (r.type !== 'message' || !u) continue;
      input += (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
      output += u.output ?? 0;
    }
    const s = foldTranscript(t);
    expect([s.inputTokens, s.outputTokens]).toEqual([input, output]);
    const reference = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'reference', 'ccusage-pi.json'), 'utf8'),
    ) as {
      sessions: {
        sessionId: string;
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
      }[];
    };
    expect(reference.sessions.map((r) => r.sessionId)).toEqual([SID]);
    const r = reference.sessions[0]!;
    expect([s.inputTokens, s.outputTokens]).toEqual([
      r.inputTokens + r.cacheReadTokens + r.cacheCreationTokens,
      r.outputTokens,
    ]);
  });

  it('points every event at its own line, which reads back exactly', async () => {
    const bytes = readFileSync(t.events[0]!.source.file);
    for (const x of [...t.events, ...t.skipped]) {
      const back = await readOriginal(platform, x.source);
      if (!back.ok) throw new Error(back.error.message);
      const whole = bytes.subarray(x.source.offset, x.source.offset + x.source.length);
      expect(Buffer.from(back.value).equals(whole)).toBe(true);
      expect(JSON.parse(whole.toString('utf8'))).toBeTypeOf('object');
    }
    expectEveryLineAccounted(t, file());
  });

  it('classifies into items: prompts, answers and compactions', () => {
    const c = classifyTranscript(t, {});
    if (!c.ok) throw new Error(c.error.message);
    const types = c.value.items.map((i) => i.type);
    expect(types.filter((x) => x.startsWith('message:'))).toEqual([
      'message:user:in',
      'message:user:out',
      'message:user:in',
      'message:user:out',
    ]);
    expect(types.filter((x) => x === 'system:compact')).toHaveLength(2);
  });
});

describe('pi on a branched session', () => {
  const t = translate(BRANCHED);
  const of = (id: string) => t.events.filter((e) => e.id === id || e.id.startsWith(`${id}:`));

  it('keeps every branch on the one lane in file order, the tree in parentId', () => {
    expectEveryLineAccounted(t, BRANCHED);
    expect(t.skipped).toEqual([]);
    expect(t.agents).toEqual([{ id: BRANCHED_ID }]);
    const a2 = of('a2').at(-1)!;
    // The abandoned prompt and the branch summary both follow a2's answer.
    expect(of('u2')[0]!.parentId).toBe(a2.id);
    expect(of('b1')[0]!.parentId).toBe(a2.id);
    expect(of('b1')[0]!.payload).toMatchObject({ synthetic: true, origin: 'branch_summary', fromId: 'a2' });
    expect(t.session.title).toBe('Reading a.txt');
  });

  it('pairs the tool call with its result, and keeps thinking and the `!` command', () => {
    const call = t.events.find((e) => e.kind === 'tool_call')!;
    const result = t.events.find((e) => e.kind === 'tool_result')!;
    expect(call.payload).toEqual({ callId: 'toolu_1', name: 'read', input: { path: 'a.txt' } });
    expect(result.payload).toMatchObject({ callId: 'toolu_1', output: 'hello', name: 'read' });
    // A result follows the last event of the answer that asked for it (its request).
    expect(result.parentId).toBe(of('a1').at(-1)!.id);
    expect(of('a1').at(-1)!.kind).toBe('request');
    expect(of('a1').map((e) => e.kind)).toEqual(['reasoning', 'tool_call', 'request']);
    expect(of('x1').map((e) => e.payload)).toEqual([
      { text: 'ls', synthetic: true, origin: 'bash_input', command: 'ls' },
      {
        text: 'a.txt\n',
        synthetic: true,
        origin: 'bash_output',
        exitCode: 0,
        cancelled: false,
        truncated: false,
      },
    ]);
    // The aborted request is a request with no usage (all its counts were 0) and a notice.
    expect(of('a3').map((e) => [e.kind, e.payload.type ?? e.payload.usage])).toEqual([
      ['system', 'turn_aborted'],
      ['request', undefined],
    ]);
  });

  it('shadows what the compaction took out of the context on its own path only', () => {
    const c1 = of('c1')[0]!;
    expect(c1.kind).toBe('compaction');
    const shadowed = t.events.filter((e) => e.shadowedBy === c1.id).map((e) => e.id.split(':')[0]);
    expect([...new Set(shadowed)]).toEqual(['u1', 'a1', 'r1', 'a2', 'b1', 'x1']);
    // The abandoned branch is not on the compaction's path, and what it kept stays.
    for (const id of ['u2', 'a3', 'u3', 'a4'])
      for (const e of of(id)) expect(e.shadowedBy, id).toBeUndefined();
  });

  it('counts every branch’s requests and tokens, as ccusage does', () => {
    const s = foldTranscript({ ...t, agent: 'pi' }, { prompts: true });
    // ccusage 20.0.24 on this file: input 105, cacheRead 1900, cacheCreation 50, output 65.
    expect(s).toMatchObject({
      requests: 4,
      inputTokens: 105 + 1900 + 50,
      outputTokens: 65,
      cacheReadTokens: 1900,
      cacheWriteTokens: 50,
      turns: 3,
      compactions: 1,
    });
    expect(s.prompts).toEqual(['Read a.txt', 'Now delete it', 'Summarize']);
    expect(t.capabilities).toEqual([
      'requests',
      'usage',
      'durations',
      'reasoning',
      'compaction',
      'compactionTokens',
    ]);
  });

  it('classifies the tool by its own name with its result linked, and the rest by what it was', () => {
    const c = classifyTranscript({ ...t, agent: 'pi' }, {});
    if (!c.ok) throw new Error(c.error.message);
    const items = c.value.items as unknown as Record<string, unknown>[];
    const use = items.find((i) => i.type === 'tool:read' && i.role === 'use')!;
    const result = items.find((i) => i.type === 'tool:read' && i.role === 'result')!;
    expect(result.parent_item).toBe(use.uuid);
    const types = items.map((i) => i.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'thinking',
        'notice:slash',
        'notice:interrupt',
        'system:compact',
        'message:user:in',
      ]),
    );
  });
});

describe('pi on damaged input', () => {
  const lines = BRANCHED_LINES;

  it('skips a truncated line, unexpected JSON, a bad line and a repeated entry, names an unknown type, and keeps the rest', () => {
    const damaged = [
      lines[0],
      '[1, 2, 3]',
      '{"note": "no type"}',
      ...lines.slice(1, 4),
      lines[3],
      '{"type":"hologram","id":"h1","parentId":"a1","timestamp":"2026-05-13T10:00:03.500Z"}',
      'not json at all',
      ...lines.slice(4),
      lines[5]!.slice(0, 60),
    ].join('\n');
    const file: SourceFile = { path: BRANCHED.path, data: Buffer.from(damaged) };
    const got = translate(file);
    expectEveryLineAccounted(got, file);
    expect(got.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [2, expect.stringMatching(/not a pi session entry/)],
      [3, expect.stringMatching(/not a pi session entry/)],
      [7, 'repeats entry a1 of line 6 byte for byte'],
      [9, 'invalid JSON'],
      [24, 'truncated line'],
    ]);
    const unknown = got.events.filter((e) => e.kind === 'unknown');
    expect(unknown.map((e) => [e.source.line, e.payload.recordType])).toEqual([[8, 'hologram']]);
    const strip = (x: TranslatedSession) =>
      x.events.filter((e) => e.kind !== 'unknown').map((e) => [e.kind, e.id, e.parentId, e.payload]);
    expect(strip(got)).toEqual(strip(translate(BRANCHED)));
    // The repeat is not counted twice.
    expect(foldTranscript({ ...got, agent: 'pi' }).inputTokens).toBe(105 + 1900 + 50);
  });

  it('keeps a message entry without a message as a skip, and an unknown role as unknown', () => {
    const file: SourceFile = {
      path: BRANCHED.path,
      data: Buffer.from(
        [
          lines[0],
          '{"type":"message","id":"q1","parentId":null,"timestamp":"2026-05-13T10:00:01.000Z"}',
          msg('q2', 'q1', 2, { role: 'telepathy', content: 'hm' }),
        ].join('\n'),
      ),
    };
    const got = translate(file);
    expect(got.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [2, 'a message entry without a message'],
    ]);
    expect(got.events.filter((e) => e.kind === 'unknown').map((e) => e.payload.recordType)).toEqual([
      'message:telepathy',
    ]);
  });

  it('chains a version 1 file (entries without ids) in file order, its compaction by index', () => {
    const v1 = [
      { type: 'session', id: BRANCHED_ID, timestamp: at(0), cwd: '/w/old' },
      { type: 'message', timestamp: at(1), message: { role: 'user', content: 'First', timestamp: 0 } },
      {
        type: 'message',
        timestamp: at(2),
        message: answer([{ type: 'text', text: 'One' }], usage(1, 1, 0, 0, 2)),
      },
      { type: 'message', timestamp: at(3), message: { role: 'user', content: 'Second', timestamp: 0 } },
      {
        type: 'compaction',
        timestamp: at(4),
        summary: 'Two prompts.',
        firstKeptEntryIndex: 3,
        tokensBefore: 9,
      },
    ];
    const got = translate({
      path: '/h/old.jsonl',
      data: Buffer.from(v1.map((r) => JSON.stringify(r)).join('\n')),
    });
    expect(got.skipped).toEqual([]);
    const [, first, one, request, second, compaction] = got.events;
    expect([first!.kind, one!.kind, request!.kind, second!.kind, compaction!.kind]).toEqual([
      'user',
      'assistant',
      'request',
      'user',
      'compaction',
    ]);
    expect(one!.parentId).toBe(first!.id);
    expect(second!.parentId).toBe(request!.id);
    // Entry 3 (the second prompt) is the first kept: what came before it is shadowed.
    expect([first, one, second].map((e) => e!.shadowedBy)).toEqual([
      compaction!.id,
      compaction!.id,
      undefined,
    ]);
  });

  it('refuses a file whose first record is not a pi session header as another format', () => {
    const r = piAdapter.translate([{ path: '/h/x.jsonl', data: Buffer.from(`${lines[1]}\n`) }]);
    expect(!r.ok && r.error._tag).toBe('UnknownFormatGeneration');
  });
});

describe('pi usage', () => {
  it('adds the cache to the input, and takes output as recorded', () => {
    expect(piUsage({ input: 10, output: 5, cacheRead: 100, cacheWrite: 20, totalTokens: 135 })).toEqual({
      inputTokens: 130,
      outputTokens: 5,
      cacheReadTokens: 100,
      cacheWriteTokens: 20,
    });
  });

  it('takes what a total has beyond the parts as output only when no output is recorded', () => {
    expect(piUsage({ totalTokens: 333 })).toEqual({ inputTokens: 0, outputTokens: 333 });
    expect(piUsage({ input: 1, output: 2, totalTokens: 10 })).toEqual({ inputTokens: 1, outputTokens: 2 });
  });

  it('records no usage for all-zero or missing counts', () => {
    expect(piUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 })).toBeUndefined();
    expect(piUsage(undefined)).toBeUndefined();
  });
});
