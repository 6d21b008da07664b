// The Copilot CLI adapter on the corpus sample (read in place, or copied into a scratch home laid
// out as Copilot's own `~/.copilot/session-state/<id>/events.jsonl`): listing, events, tool
// pairing, subagent lanes, usage against counts taken from the lines here and against ccusage,
// pointers that read back byte for byte, items, and damaged input.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { copilotCliAdapter } from '../../src/adapters/copilot-cli/index.js';
import { shutdownUsage } from '../../src/adapters/copilot-cli/usage.js';
import { parseWorkspace } from '../../src/adapters/copilot-cli/workspace.js';
import { builtinSessionAdapters } from '../../src/adapters/index.js';
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

const SAMPLE = corpusPath('more', 'copilot');
const V1 = 'aaaabbbb-1111-2222-3333-ccccddddeeee';
/** Each sample file and the session folder it gets in the scratch home. */
const LAYOUT: [string, string][] = [
  ['small.jsonl', 'small'],
  ['large.jsonl', 'large'],
  ['schema_drift.jsonl', 'schema_drift'],
  [`subdir_v1/${V1}/events.jsonl`, V1],
];

const read = (name: string): SourceFile => ({
  path: join(SAMPLE, name),
  data: readFileSync(join(SAMPLE, name)),
});

function translate(...files: SourceFile[]): TranslatedSession {
  const r = copilotCliAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Every line is the source of events or of skipped records, and no line is lost. */
function expectEveryLineAccounted(t: TranslatedSession, file: SourceFile) {
  const lines = new Set([...t.events, ...t.skipped].map((x) => x.source.line));
  expect(lines.size, file.path).toBe(countLines(file.data));
}

/** A scratch home with the sample laid out as Copilot's, a title for one session, and one flat file. */
function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'cairn-copilot-'));
  const state = join(home, '.copilot', 'session-state');
  for (const [file, dir] of LAYOUT) {
    mkdirSync(join(state, dir), { recursive: true });
    cpSync(join(SAMPLE, file), join(state, dir, 'events.jsonl'));
  }
  writeFileSync(
    join(state, V1, 'workspace.yaml'),
    `id: ${V1}\ncwd: /tmp/project\nsummary: 'List the project''s files'\nsummary_count: 1\n`,
  );
  // The older layout: one flat file per session, named by its id.
  cpSync(join(SAMPLE, 'large.jsonl'), join(state, 'flat-session.jsonl'));
  // A folder Copilot made but never wrote events to is no session.
  mkdirSync(join(state, 'empty-session'));
  return home;
}

describe('copilot-cli homes', () => {
  const join2 = (...p: string[]) => p.join('/');
  it('are ~/.copilot, or $COPILOT_HOME in its place', () => {
    expect(copilotCliAdapter.homes({ env: {}, homeDir: '/u', join: join2 })).toEqual(['/u/.copilot']);
    expect(copilotCliAdapter.homes({ env: { COPILOT_HOME: '/c' }, homeDir: '/u', join: join2 })).toEqual([
      '/c',
    ]);
  });
});

describe.skipIf(!corpus)('copilot-cli on the corpus sample', () => {
  let platform: ReturnType<typeof nodePlatform>;
  let heads: SessionHead[];
  const loaded = new Map<string, Transcript>();

  beforeAll(async () => {
    const home = scratchHome();
    platform = nodePlatform({ env: { HOME: home }, homeDir: home });
    heads = [];
    for await (const entry of listSessions(platform, { agent: 'copilot' })) {
      if ('ref' in entry) throw new Error(entry.error.message);
      heads.push(entry);
    }
    for (const h of heads) {
      const t = await loadTranscript(platform, { agent: h.agent, path: h.path });
      if (!t.ok) throw new Error(t.error.message);
      loaded.set(h.id, t.value);
    }
  });

  it('lists each session folder and flat file: id, title, cwd, branch, model, first prompt and times', () => {
    expect(heads.map((h) => h.id).sort()).toEqual([...LAYOUT.map(([, dir]) => dir), 'flat-session'].sort());
    const byId = new Map(heads.map((h) => [h.id, h]));
    expect(byId.get(V1)).toMatchObject({
      agent: 'copilot-cli',
      title: "List the project's files",
      cwd: '/tmp/project',
      gitBranch: 'main',
      firstPrompt: 'List the files',
      startedAt: Date.parse('2026-03-26T17:50:34.302Z'),
      lastActivityAt: Date.parse('2026-03-26T17:50:37.100Z'),
    });
    expect(byId.get(V1)!.path).toMatch(/session-state\/aaaabbbb-1111-2222-3333-ccccddddeeee\/events\.jsonl$/);
    // The model of the first answer; else the model the session switched to before answering.
    expect(byId.get('small')).toMatchObject({ model: 'gpt-5-mini', cwd: '/tmp/repo', gitBranch: 'main' });
    expect(byId.get('large')).toMatchObject({ model: 'gpt-5', firstPrompt: 'Step 1' });
    expect(byId.get('flat-session')).toMatchObject({ model: 'gpt-5', firstPrompt: 'Step 1' });
    expect(byId.get('large')!.title).toBeUndefined();
  });

  it('detects Copilot files, no other agent claims them, and it claims no other agent’s', () => {
    for (const [file] of LAYOUT) {
      const f = read(file);
      const claimed = builtinSessionAdapters.filter((a) => a.detect(f.path, f.data.subarray(0, 128 * 1024)));
      expect(
        claimed.map((a) => a.id),
        file,
      ).toEqual(['copilot-cli']);
    }
    const others = (dir: string): string[] =>
      readdirSync(corpusPath(dir), { withFileTypes: true, recursive: true })
        .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
        .map((d) => join(d.parentPath, d.name));
    const more = readdirSync(corpusPath('more')).filter((d) => d !== 'copilot');
    for (const path of [...others('claude'), ...others('codex'), ...more.flatMap((d) => others(`more/${d}`))])
      expect(copilotCliAdapter.detect(path, readFileSync(path).subarray(0, 128 * 1024)), path).toBe(false);
  });

  it('turns each event into events on the main lane: prompt, turn, call, result, answer', () => {
    const t = loaded.get(V1)!;
    expect(t.agents).toEqual([{ id: V1 }]);
    expect(t.agentVersion).toBe('1.0.11');
    expect(t.events.map((e) => `${e.kind}@${e.source.line}`)).toEqual([
      'system@1',
      'user@2',
      'system@3',
      'tool_call@4',
      'tool_result@6',
      'system@7',
      'assistant@8',
    ]);
    const call = t.events[3]!;
    const result = t.events[4]!;
    expect(call.payload).toEqual({
      callId: 'call_1',
      name: 'bash',
      input: { command: 'ls', description: 'List files' },
    });
    expect(result.payload).toMatchObject({ callId: 'call_1', output: 'file1\nfile2\n' });
    expect(result.payload).not.toHaveProperty('orphan');
    // parentId chains the records: each event follows the last event of the record it names.
    expect(result.parentId).toBe(call.id);
    // The execution start repeats the call the message asked for: accounted for, with why.
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [5, expect.stringMatching(/already records/)],
    ]);
    expect(t.session).toMatchObject({ id: V1, cwd: '/tmp/project' });
    const s = foldTranscript(t, { prompts: true });
    expect(s).toMatchObject({ turns: 1, prompts: ['List the files'], compactions: 0, subagents: 0 });
    // No shutdown was written: no token counts, absent rather than 0; requests are never counted.
    expect(t.capabilities).toEqual(['durations', 'compaction', 'subagents']);
    expect(s.inputTokens).toBeUndefined();
    expect(s.requests).toBeUndefined();
  });

  it('keeps a subagent on a lane of its own, started by its call, and the system prompt, hooks, errors and aborts', () => {
    const t = loaded.get('small')!;
    expect(t.agents).toHaveLength(2);
    const sub = t.agents[1]!;
    expect(sub).toMatchObject({ parentId: 'small', title: '[trimmed for fixture]' });
    expect(t.events.filter((e) => e.agentId === sub.id).map((e) => `${e.kind}@${e.source.line}`)).toEqual([
      'reasoning@19',
      'assistant@19',
      'tool_call@19',
      'tool_result@21',
    ]);
    expect(t.events.find((e) => e.id === sub.spawnEventId)).toMatchObject({
      kind: 'tool_call',
      agentId: 'small',
    });
    expect(t.session.systemPrompt).toBe('[trimmed for fixture]');
    expect(t.events.find((e) => e.kind === 'hook')!.payload).toMatchObject({
      event: 'postToolUse',
      status: 'started',
    });
    expect(t.events.find((e) => e.source.line === 4)!.payload).toMatchObject({
      type: 'error',
      text: 'Example model error',
    });
    expect(t.events.find((e) => e.source.line === 27)!.payload).toMatchObject({ type: 'turn_aborted' });
    // A truncation that removed nothing is no compaction.
    expect(t.events.find((e) => e.source.line === 28)).toMatchObject({ kind: 'system' });
    expect(t.capabilities).toEqual([
      'durations',
      'reasoning',
      'compaction',
      'subagents',
      'systemPrompt',
      'hooks',
    ]);
    const s = foldTranscript(t);
    expect(s).toMatchObject({ subagents: 1, compactions: 0, turns: 2 });
    // The shutdown's only row has no token counts: no usage, and the capability is not claimed.
    expect(s.inputTokens).toBeUndefined();
    expect(t.events.filter((e) => e.kind === 'request').map((e) => e.payload)).toEqual([
      { model: 'gpt-5-mini', scope: 'process totals', requests: 2 },
    ]);
  });

  it('reads a truncation that removed tokens as a compaction, and pairs a start without a message', () => {
    const t = loaded.get('large')!;
    const compaction = t.events.find((e) => e.kind === 'compaction')!;
    expect(compaction.payload).toMatchObject({ trigger: 'context_limit', tokensRemoved: 1234 });
    expect(foldTranscript(t).compactions).toBe(1);
    // call_2 was recorded only by its execution start: that is the call.
    expect(t.events.find((e) => e.kind === 'tool_call' && e.payload.callId === 'call_2')!.source.line).toBe(
      14,
    );
    expect(t.events.filter((e) => e.kind === 'hook').map((e) => e.payload.status ?? 'ended')).toEqual([
      'started',
      'ended',
    ]);
    // A result whose call is nowhere in the file is marked so.
    const drift = loaded.get('schema_drift')!;
    const orphan = drift.events.find((e) => e.kind === 'tool_result' && e.payload.callId === 'call_2')!;
    expect(orphan.payload).toMatchObject({ orphan: true, isError: true });
  });

  it('counts tokens as the session.shutdown lines say, and as ccusage 20.0.24 does', () => {
    // The test's own count, from the lines: every shutdown's per-model usage, cache included.
    const mine = new Map<string, { input: number; output: number }>();
    for (const [file, dir] of LAYOUT) {
      for (const line of readFileSync(join(SAMPLE, file), 'utf8').split('\n')) {
        let r: {
          type?: string;
          data?: { modelMetrics?: Record<string, { usage?: Record<string, number> }> };
        };
        try {
          r = JSON.parse(line);
        } catch {
          continue;
        }
        if (r.type !== 'session.shutdown') continue;
        for (const m of Object.values(r.data?.modelMetrics ?? {})) {
          if (!m.usage) continue;
          const sum = mine.get(dir) ?? { input: 0, output: 0 };
          sum.input += m.usage.inputTokens ?? 0;
          sum.output += m.usage.outputTokens ?? 0;
          mine.set(dir, sum);
        }
      }
    }
    expect([...mine.keys()]).toEqual(['schema_drift']);
    for (const [id, t] of loaded) {
      const s = foldTranscript(t);
      const want = mine.get(id);
      if (!want) {
        expect(s.inputTokens, id).toBeUndefined();
        continue;
      }
      expect([s.inputTokens, s.outputTokens, s.cacheReadTokens], id).toEqual([want.input, want.output, 800]);
    }
    const reference = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'reference', 'ccusage-copilot.json'), 'utf8'),
    ) as {
      sessions: {
        sessionId: string;
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
      }[];
    };
    for (const r of reference.sessions) {
      const s = foldTranscript(loaded.get(r.sessionId)!);
      expect([s.inputTokens, s.outputTokens], r.sessionId).toEqual([
        r.inputTokens + r.cacheReadTokens + r.cacheCreationTokens,
        r.outputTokens,
      ]);
    }
    expect(reference.sessions.map((r) => r.sessionId)).toEqual(['schema_drift']);
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
    for (const [file] of LAYOUT) expectEveryLineAccounted(translate(read(file)), read(file));
  });

  it('classifies into items: the prompt, the tool by its own name with its result linked, the brief of a subagent', () => {
    const c = classifyTranscript(loaded.get(V1)!, {});
    if (!c.ok) throw new Error(c.error.message);
    const items = c.value.items as unknown as Record<string, unknown>[];
    expect(items.map((i) => i.type)).toEqual([
      'message:user:in',
      'tool:bash',
      'tool:bash',
      'message:user:out',
    ]);
    const use = items.find((i) => i.type === 'tool:bash' && i.role === 'use')!;
    const result = items.find((i) => i.type === 'tool:bash' && i.role === 'result')!;
    expect(result.parent_item).toBe(use.uuid);
    const small = classifyTranscript(loaded.get('small')!, {});
    if (!small.ok) throw new Error(small.error.message);
    expect(small.value.items.map((i) => i.type)).toEqual(
      expect.arrayContaining([
        'tool:shell',
        'message:sub:out',
        'system:api-error',
        'notice:interrupt',
        'thinking',
      ]),
    );
  });
});

describe.skipIf(!corpus)('copilot-cli on damaged input', () => {
  const good = readFileSync(join(SAMPLE, 'subdir_v1', V1, 'events.jsonl'), 'utf8');
  const lines = good.trimEnd().split('\n');
  const path = `/h/.copilot/session-state/${V1}/events.jsonl`;

  it('skips a truncated line, unexpected JSON and a bad line, names an unknown type, and keeps the rest', () => {
    const damaged = [
      lines[0],
      '[1, 2, 3]',
      '{"note": "no envelope"}',
      lines[1],
      '{"type":"hologram.projected","data":{},"id":"h1","timestamp":"2026-03-26T17:50:35.050Z","parentId":"e2"}',
      'not json at all',
      ...lines.slice(2),
      lines[3]!.slice(0, 80),
    ].join('\n');
    const file: SourceFile = { path, data: Buffer.from(damaged) };
    const t = translate(file);
    const clean = translate({ path, data: Buffer.from(good) });
    expectEveryLineAccounted(t, file);
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [2, expect.stringMatching(/not a Copilot CLI event/)],
      [3, expect.stringMatching(/not a Copilot CLI event/)],
      [6, 'invalid JSON'],
      [9, expect.stringMatching(/already records/)],
      [13, 'truncated line'],
    ]);
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown.map((e) => [e.source.line, e.payload.recordType])).toEqual([[5, 'hologram.projected']]);
    const strip = (x: TranslatedSession) =>
      x.events.filter((e) => e.kind !== 'unknown').map((e) => [e.kind, e.id, e.payload]);
    expect(strip(t)).toEqual(strip(clean));
  });

  it('keeps the last of two shutdowns with one id, and the well-formed counts of a bad row', () => {
    const shutdown = (id: string, input: unknown) =>
      JSON.stringify({
        type: 'session.shutdown',
        id,
        parentId: 'e8',
        timestamp: '2026-03-26T17:51:00.000Z',
        data: {
          modelMetrics: {
            'gpt-4.1': { requests: { count: 1 }, usage: { inputTokens: input, outputTokens: 5 } },
          },
        },
      });
    const data = Buffer.from(
      [good.trimEnd(), shutdown('s1', 100), shutdown('s1', 120), shutdown('s2', -3)].join('\n'),
    );
    const t = translate({ path, data });
    const s = foldTranscript({ ...t, agent: 'copilot-cli' });
    // 120 (the last write of s1) + 0 (s2's negative input is left out and noted); 5 + 5 output.
    expect([s.inputTokens, s.outputTokens]).toEqual([120, 10]);
    const bad = t.events.find((e) => e.kind === 'request' && e.source.line === 11)!;
    expect(bad.invalid).toEqual([
      { field: 'data.modelMetrics.gpt-4.1.usage.inputTokens', reason: 'negative' },
    ]);
  });

  it('refuses a file whose first record is not a Copilot event as another format', () => {
    const r = copilotCliAdapter.translate([
      { path: '/h/x.jsonl', data: Buffer.from('{"uuid":"u","type":"user"}\n') },
    ]);
    expect(!r.ok && r.error._tag).toBe('UnknownFormatGeneration');
  });
});

describe('copilot-cli usage and workspace', () => {
  it('takes input with the cache in it, and adds reasoning to the output only for Gemini models', () => {
    const usage = {
      inputTokens: 1000,
      outputTokens: 50,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
      reasoningTokens: 20,
    };
    expect(shutdownUsage('claude-sonnet-4.5', { usage })).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
      reasoningTokens: 20,
    });
    expect(shutdownUsage('gemini-2.5-pro', { usage })?.outputTokens).toBe(70);
    // An input smaller than the cache cannot hold it: ccusage's input is then 0, the cache stands.
    expect(
      shutdownUsage('gpt-5', { usage: { inputTokens: 10, cacheReadTokens: 30, outputTokens: 1 } })
        ?.inputTokens,
    ).toBe(30);
    expect(shutdownUsage('gpt-5', { requests: 2 })).toBeUndefined();
    expect(shutdownUsage('gpt-5', { usage: { inputTokens: 0, outputTokens: 0 } })).toBeUndefined();
  });

  it('reads workspace.yaml scalars: plain, quoted, folded over lines and block', () => {
    const w = parseWorkspace(
      [
        'id: abc',
        'cwd: /home/u/p # a comment',
        'summary: "Fix the \\"parser\\""',
        'branch: >-',
        '  feature',
        '  work',
        'notes: |',
        '  one',
        '  two',
        'long: a summary that',
        '  wraps onto the next line',
        'empty:',
        'created_at: 2026-03-26T17:50:34.263Z',
      ].join('\n'),
    );
    expect(w).toEqual({
      id: 'abc',
      cwd: '/home/u/p',
      summary: 'Fix the "parser"',
      branch: 'feature work',
      notes: 'one\ntwo',
      long: 'a summary that wraps onto the next line',
      created_at: '2026-03-26T17:50:34.263Z',
    });
  });
});
