// The Qwen Code adapter on the corpus sample (read in place, or copied into a scratch home laid
// out as Qwen Code's own): listing, events, tool pairing, usage against counts taken from the
// lines here, pointers that read back byte for byte, items, and damaged input.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { builtinSessionAdapters } from '../../src/adapters/index.js';
import { qwenCodeAdapter } from '../../src/adapters/qwen-code/index.js';
import { qwenUsage } from '../../src/adapters/qwen-code/usage.js';
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

const SAMPLE = corpusPath('more', 'qwen');
const ACTIVE = '019f0000-0000-7000-8000-000000000004';
const FIXTURE = '019f0000-0000-7000-8000-000000000001';

const read = (name: string): SourceFile => ({
  path: join(SAMPLE, name),
  data: readFileSync(join(SAMPLE, name)),
});

function translate(...files: SourceFile[]): TranslatedSession {
  const r = qwenCodeAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Every line is the source of events or of skipped records, and no line is lost. */
function expectEveryLineAccounted(t: TranslatedSession, file: SourceFile) {
  const lines = new Set([...t.events, ...t.skipped].map((x) => x.source.line));
  expect(lines.size, file.path).toBe(countLines(file.data));
}

/** A scratch home with the sample laid out as `~/.qwen/projects/<project>/chats/`. */
function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'cairn-qwen-'));
  const chats = join(home, '.qwen', 'projects', '-tmp-as-qwen-fixture-project', 'chats');
  mkdirSync(chats, { recursive: true });
  for (const name of readdirSync(SAMPLE)) cpSync(join(SAMPLE, name), join(chats, name));
  return home;
}

describe('qwen-code homes', () => {
  const join2 = (...p: string[]) => p.join('/');
  it('are ~/.qwen, $QWEN_HOME in its place, and $QWEN_RUNTIME_DIR first when set', () => {
    expect(qwenCodeAdapter.homes({ env: {}, homeDir: '/u', join: join2 })).toEqual(['/u/.qwen']);
    expect(qwenCodeAdapter.homes({ env: { QWEN_HOME: '/q' }, homeDir: '/u', join: join2 })).toEqual(['/q']);
    expect(
      qwenCodeAdapter.homes({ env: { QWEN_RUNTIME_DIR: '/r', QWEN_HOME: '' }, homeDir: '/u', join: join2 }),
    ).toEqual(['/r', '/u/.qwen']);
  });
});

describe.skipIf(!corpus)('qwen-code on the corpus sample', () => {
  let home: string;
  let platform: ReturnType<typeof nodePlatform>;
  let heads: SessionHead[];
  const loaded = new Map<string, Transcript>();

  beforeAll(async () => {
    home = scratchHome();
    platform = nodePlatform({ env: { HOME: home }, homeDir: home });
    heads = [];
    for await (const entry of listSessions(platform, { agent: 'qwen-code' })) {
      if ('ref' in entry) throw new Error(entry.error.message);
      heads.push(entry);
    }
    for (const h of heads) {
      const t = await loadTranscript(platform, { agent: h.agent, path: h.path });
      if (!t.ok) throw new Error(t.error.message);
      loaded.set(h.id, t.value);
    }
  });

  it('lists every chat file as a session: id from the file name, cwd, title, first prompt and times from the records', () => {
    expect(heads.map((h) => h.id).sort()).toEqual(
      readdirSync(SAMPLE)
        .map((n) => n.replace(/\.jsonl$/, ''))
        .filter((n) => n !== 'system_telemetry')
        .concat('system_telemetry')
        .sort(),
    );
    const byId = new Map(heads.map((h) => [h.id, h]));
    expect(byId.get(FIXTURE)).toMatchObject({
      agent: 'qwen-code',
      cwd: '/tmp/as-qwen-fixture/project',
      gitBranch: 'fixture-branch',
      model: 'synthetic-model',
      // What the person typed, not the hook context the CLI appended to the message.
      firstPrompt: 'Inspect the synthetic fixture.',
      startedAt: Date.parse('2026-08-17T12:00:00.000Z'),
      lastActivityAt: Date.parse('2026-08-17T12:00:05.000Z'),
    });
    // The latest title the session was given wins; the session started in its first record's folder.
    expect(byId.get(ACTIVE)).toMatchObject({
      title: 'Active branch title',
      cwd: '/tmp/as-qwen-fixture/old-project',
      firstPrompt: 'Begin the active-chain fixture.',
      lastActivityAt: Date.parse('2026-08-17T13:00:08.000Z'),
    });
    // A record that names another session still belongs to the file it is in.
    expect(byId.get('019f0000-0000-7000-8000-000000000002')?.firstPrompt).toBe(
      'This record deliberately carries the wrong session ID.',
    );
  });

  it('detects Qwen Code files and no other agent claims them', () => {
    for (const name of readdirSync(SAMPLE)) {
      const file = read(name);
      expect(qwenCodeAdapter.detect(file.path, file.data), name).toBe(true);
    }
    for (const name of readdirSync(SAMPLE)) {
      const file = read(name);
      const claimed = builtinSessionAdapters.filter((a) =>
        a.detect(file.path, file.data.subarray(0, 128 * 1024)),
      );
      expect(
        claimed.map((a) => a.id),
        name,
      ).toEqual(['qwen-code']);
    }
    // Nor does it claim another agent's JSONL files.
    const others = (dir: string): string[] =>
      readdirSync(corpusPath(dir), { withFileTypes: true, recursive: true })
        .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
        .map((d) => join(d.parentPath, d.name));
    const more = readdirSync(corpusPath('more')).filter((d) => d !== 'qwen');
    for (const path of [...others('claude'), ...others('codex'), ...more.flatMap((d) => others(`more/${d}`))])
      expect(qwenCodeAdapter.detect(path, readFileSync(path).subarray(0, 128 * 1024)), path).toBe(false);
  });

  it('turns each record into events on lanes: prompt, hook context, reasoning, call, result, text, system', () => {
    const t = loaded.get(FIXTURE)!;
    expect(t.agents).toEqual([{ id: FIXTURE }]);
    expect(t.agentVersion).toBe('0.21.13');
    expect(t.events.map((e) => `${e.kind}@${e.source.line}`)).toEqual([
      'user@1',
      'user@1',
      'reasoning@2',
      'tool_call@2',
      'tool_result@3',
      'assistant@4',
      'user@6',
    ]);
    const [prompt, hook, thought, call, result, answer, note] = t.events;
    expect(prompt!.payload).toEqual({ text: 'Inspect the synthetic fixture.' });
    expect(hook!.payload).toMatchObject({ synthetic: true, origin: 'hook_output' });
    expect(thought!.payload).toEqual({ text: 'I should read the synthetic file.' });
    expect(call!.payload).toEqual({
      callId: 'synthetic-call-1',
      name: 'read_file',
      input: { path: '/tmp/as-qwen-fixture/project/README.md' },
    });
    expect(result!.payload).toMatchObject({ callId: 'synthetic-call-1', output: 'Synthetic file contents.' });
    expect(result!.payload.orphan).toBeUndefined();
    expect(answer!.payload).toEqual({ text: 'The synthetic fixture is valid.' });
    expect(note!.payload).toMatchObject({ synthetic: true, origin: 'notification' });
    // parentUuid chains the records: each record's first event follows the last event of its parent.
    expect(call!.parentId).toBe(thought!.id);
    expect(result!.parentId).toBe(call!.id);
    expect(answer!.parentId).toBe(result!.id);
    // The telemetry line is accounted for, as a skip that says why.
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [5, expect.stringMatching(/telemetry/)],
    ]);
    expect(t.session).toMatchObject({ id: FIXTURE, cwd: '/tmp/as-qwen-fixture/project' });
    const s = foldTranscript(t, { prompts: true });
    expect(s.turns).toBe(1);
    // Without usageMetadata the records say nothing of requests or tokens: absent, not 0.
    expect(t.capabilities).toEqual(['durations', 'reasoning']);
    expect(s.requests).toBeUndefined();
    expect(s.inputTokens).toBeUndefined();
  });

  it('keeps the branch a rewind left as the records give it, and the request its usage came with', () => {
    const t = loaded.get(ACTIVE)!;
    const byLine = (line: number) => t.events.filter((e) => e.source.line === line);
    // The rewound branch (lines 2–3) hangs off the root; the rewind and what follows do too.
    expect(byLine(2)[0]!.parentId).toBe(byLine(1)[0]!.id);
    expect(byLine(4)[0]).toMatchObject({
      kind: 'system',
      payload: { type: 'rewind', messageId: byLine(1)[0]!.id },
    });
    expect(byLine(4)[0]!.parentId).toBe(byLine(1)[0]!.id);
    expect(byLine(5)[0]).toMatchObject({
      kind: 'user',
      payload: { text: 'Continue from the rewound branch.' },
    });
    // The same uuid written twice: both writes are events, the second carries the request.
    expect(byLine(6).map((e) => e.kind)).toEqual(['reasoning']);
    expect(byLine(7).map((e) => e.kind)).toEqual(['tool_call', 'assistant', 'request']);
    const request = byLine(7).find((e) => e.kind === 'request')!;
    expect(request.payload).toMatchObject({ model: 'synthetic-active-model' });
    for (const e of byLine(7)) if (e.kind !== 'request') expect(e.requestId).toBe(request.id);
    // A call whose result the file never recorded stays a call without a result.
    expect(t.events.filter((e) => e.kind === 'tool_result')).toEqual([]);
    expect(t.session.title).toBe('Active branch title');
    expect(t.capabilities).toEqual(['requests', 'usage', 'durations', 'reasoning']);
    const s = foldTranscript(t, { prompts: true });
    expect(s.turns).toBe(2);
    expect(s.requests).toBe(1);
  });

  it('counts tokens as the usageMetadata lines say, and as ccusage 20.0.24 does', () => {
    // The test's own count, from the lines: every assistant record's usageMetadata.
    const mine = new Map<string, { input: number; output: number; cached: number }>();
    for (const name of readdirSync(SAMPLE)) {
      for (const line of readFileSync(join(SAMPLE, name), 'utf8').split('\n')) {
        let r: { type?: string; usageMetadata?: Record<string, number> };
        try {
          r = JSON.parse(line);
        } catch {
          continue;
        }
        const u = r.usageMetadata;
        if (r.type !== 'assistant' || !u) continue;
        const sum = mine.get(name.replace(/\.jsonl$/, '')) ?? { input: 0, output: 0, cached: 0 };
        sum.input += u.promptTokenCount ?? 0;
        sum.output += u.candidatesTokenCount ?? 0;
        sum.cached += u.cachedContentTokenCount ?? 0;
        mine.set(name.replace(/\.jsonl$/, ''), sum);
      }
    }
    for (const [id, t] of loaded) {
      const s = foldTranscript(t);
      const want = mine.get(id);
      if (!want || want.input + want.output === 0) {
        expect(s.inputTokens, id).toBeUndefined();
        continue;
      }
      expect([s.inputTokens, s.outputTokens], id).toEqual([want.input, want.output]);
    }
    // ccusage's own output on this sample (test/reference/ccusage-qwen.json).
    const reference = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'reference', 'ccusage-qwen.json'), 'utf8'),
    ) as { sessions: { sessionId: string; inputTokens: number; outputTokens: number }[] };
    for (const r of reference.sessions) {
      const s = foldTranscript(loaded.get(r.sessionId)!);
      expect([s.inputTokens, s.outputTokens], r.sessionId).toEqual([r.inputTokens, r.outputTokens]);
    }
    expect(reference.sessions.map((r) => r.sessionId)).toEqual([ACTIVE]);
  });

  it('points every event and skip at its own bytes, which read back exactly', async () => {
    for (const t of loaded.values()) {
      for (const x of [...t.events, ...t.skipped]) {
        const back = await readOriginal(platform, x.source);
        if (!back.ok) throw new Error(back.error.message);
        const whole = readFileSync(x.source.file).subarray(
          x.source.offset,
          x.source.offset + x.source.length,
        );
        expect(Buffer.from(back.value).equals(whole)).toBe(true);
      }
    }
  });

  it('reads two records written on one line as two records, both pointing at that line', () => {
    const t = loaded.get('019f0000-0000-7000-8000-000000000005')!;
    expect(t.skipped).toEqual([]);
    expect(t.events.map((e) => e.kind)).toEqual(['user', 'assistant']);
    const [user, answer] = t.events;
    const size = readFileSync(join(SAMPLE, '019f0000-0000-7000-8000-000000000005.jsonl')).length;
    expect(user!.source).toEqual(answer!.source);
    expect(user!.source).toMatchObject({ line: 1, offset: 0, length: size - 1 });
    expect(answer!.parentId).toBe(user!.id);
    expect(answer!.payload.text).toBe('Recovered both synthetic objects.');
  });

  it('classifies into items: prompts, thinking, the tool by its own name with its result linked', () => {
    const c = classifyTranscript(loaded.get(FIXTURE)!, {});
    if (!c.ok) throw new Error(c.error.message);
    const types = c.value.items.map((i) => i.type);
    expect(types).toEqual(
      expect.arrayContaining(['message:user:in', 'thinking', 'tool:read_file', 'message:user:out']),
    );
    const items = c.value.items as unknown as Record<string, unknown>[];
    const use = items.find((i) => i.type === 'tool:read_file' && i.role === 'use')!;
    const result = items.find((i) => i.type === 'tool:read_file' && i.role === 'result')!;
    expect(result.parent_item).toBe(use.uuid);
    // A slash command and the output the CLI showed for it are notices; telemetry is no item.
    const t = loaded.get('system_telemetry')!;
    expect(t.skipped.map((x) => x.source.line)).toEqual([1, 3, 4, 5]);
    const telemetry = classifyTranscript(t, {});
    if (!telemetry.ok) throw new Error(telemetry.error.message);
    const notices = telemetry.value.items.filter((i) => i.type === 'notice:slash') as unknown as Record<
      string,
      unknown
    >[];
    expect(notices).toHaveLength(2);
    expect(String(notices[1]!.stdout)).toContain('"type":"about"');
  });
});

describe.skipIf(!corpus)('qwen-code on damaged input', () => {
  const good = readFileSync(join(SAMPLE, `${FIXTURE}.jsonl`), 'utf8');
  const lines = good.trimEnd().split('\n');

  it('skips a truncated line, a line of unexpected JSON and a bad line, names an unknown type, and keeps the rest', () => {
    const damaged = [
      lines[0],
      '[1, 2, 3]',
      '{"note": "no envelope"}',
      lines[1],
      '{"uuid":"u-x","parentUuid":null,"sessionId":"s","timestamp":"2026-08-17T12:00:01.500Z","type":"hologram"}',
      'not json at all',
      ...lines.slice(2),
      lines[3]!.slice(0, 80),
    ].join('\n');
    const file: SourceFile = {
      path: `/h/.qwen/projects/p/chats/${FIXTURE}.jsonl`,
      data: Buffer.from(damaged),
    };
    const t = translate(file);
    const clean = translate({ path: file.path, data: Buffer.from(good) });
    expectEveryLineAccounted(t, file);
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [2, expect.stringMatching(/not a Qwen Code record/)],
      [3, expect.stringMatching(/not a Qwen Code record/)],
      [6, 'invalid JSON'],
      [9, expect.stringMatching(/telemetry/)],
      [11, 'truncated line'],
    ]);
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown.map((e) => [e.source.line, e.payload.recordType])).toEqual([[5, 'hologram']]);
    // Everything else is what the undamaged file makes.
    const strip = (x: TranslatedSession) =>
      x.events.filter((e) => e.kind !== 'unknown').map((e) => [e.kind, e.id, e.payload]);
    expect(strip(t)).toEqual(strip(clean));
  });

  it('refuses a file whose first record is not a Qwen Code record as another format', () => {
    const r = qwenCodeAdapter.translate([
      { path: '/h/x.jsonl', data: Buffer.from('{"id":"m1","type":"gemini"}\n') },
    ]);
    expect(!r.ok && r.error._tag).toBe('UnknownFormatGeneration');
  });
});

describe('qwen-code usage', () => {
  it('takes the prompt count as the input, cache included, and candidates as the output, reasoning included', () => {
    // OpenAI-compatible responses: prompt_tokens includes the cache, completion_tokens the reasoning.
    const usage = qwenUsage({
      promptTokenCount: 1000,
      cachedContentTokenCount: 800,
      candidatesTokenCount: 100,
      thoughtsTokenCount: 40,
      totalTokenCount: 1100,
    });
    expect(usage).toEqual({
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 800,
      reasoningTokens: 40,
    });
  });

  it('adds thoughts to the output when the total counts them outside the candidates (Gemini’s own API)', () => {
    const usage = qwenUsage({
      promptTokenCount: 50,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 5,
      totalTokenCount: 65,
    });
    expect(usage).toEqual({ inputTokens: 50, outputTokens: 15, reasoningTokens: 5 });
  });

  it('records no usage for empty or all-zero metadata, and an output from a lone total', () => {
    expect(qwenUsage({})).toBeUndefined();
    expect(qwenUsage({ promptTokenCount: 0, candidatesTokenCount: 0 })).toBeUndefined();
    expect(qwenUsage({ totalTokenCount: 321 })).toEqual({ inputTokens: 0, outputTokens: 321 });
  });
});

describe('qwen-code listing of a home the test fills', () => {
  it('lists a session written after the sample, and skips what is not a chat file', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-qwen-'));
    const chats = join(home, '.qwen', 'projects', 'p', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, 'notes.txt'), 'not a session');
    const platform = nodePlatform({ env: { HOME: home }, homeDir: home });
    const heads: SessionHead[] = [];
    for await (const e of listSessions(platform, { agent: 'qwen' })) if (!('ref' in e)) heads.push(e);
    expect(heads).toEqual([]);
  });
});
