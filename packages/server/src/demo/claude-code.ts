// The demo sessions of Claude Code: a main file, a subagent's file, a compaction.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, jsonl, mungedCwd, PROJECT } from './records.js';

interface ClaudeWriter {
  records: object[];
  user(content: unknown, extra?: object): string;
  assistant(blocks: object[], opts?: { stop?: string; usage?: Usage }): string;
  system(subtype: string, extra: object): string;
}

interface Usage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

function claudeWriter(sessionId: string, tick: (s?: number) => number, extra: object = {}): ClaudeWriter {
  const records: object[] = [];
  let parent: string | null = null;
  const envelope = (type: string) => {
    const uuid = randomUUID();
    const r = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: PROJECT,
      sessionId,
      version: '2.1.40',
      gitBranch: 'main',
      type,
      uuid,
      timestamp: iso(tick()),
      ...extra,
    };
    parent = uuid;
    return r;
  };
  return {
    records,
    user(content, more = {}) {
      const r = { ...envelope('user'), message: { role: 'user', content }, ...more };
      records.push(r);
      return r.uuid;
    },
    assistant(blocks, opts = {}) {
      // Claude Code writes one line per content block; the lines of one reply share its ids and usage.
      const id = `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      const requestId = `req_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      const u = opts.usage ?? { input: 4, cacheRead: 18_000, cacheWrite: 900, output: 240 };
      let last = '';
      blocks.forEach((block, i) => {
        const final = i === blocks.length - 1;
        const r = {
          ...envelope('assistant'),
          requestId,
          message: {
            model: 'claude-sonnet-4-5',
            id,
            type: 'message',
            role: 'assistant',
            content: [block],
            stop_reason: final ? (opts.stop ?? 'end_turn') : null,
            stop_sequence: null,
            usage: {
              input_tokens: u.input,
              cache_creation_input_tokens: u.cacheWrite,
              cache_read_input_tokens: u.cacheRead,
              output_tokens: final ? u.output : Math.min(12, u.output),
              service_tier: 'standard',
            },
          },
        };
        records.push(r);
        last = r.uuid;
      });
      return last;
    },
    system(subtype, more) {
      const r = { ...envelope('system'), subtype, level: 'info', isMeta: false, ...more };
      records.push(r);
      return r.uuid;
    },
  };
}

export function writeClaudeSession(home: string, start: number): string[] {
  const sid = randomUUID();
  const agentId = 'a3f9c21';
  const dir = join(home, '.claude', 'projects', mungedCwd(PROJECT));
  mkdirSync(join(dir, sid, 'subagents'), { recursive: true });
  const tick = clock(start);
  const w = claudeWriter(sid, tick);

  w.user('The forecast command hangs forever when the weather API is slow. Add a timeout and retry.');
  w.assistant(
    [
      {
        type: 'thinking',
        thinking: 'I should find where the HTTP request is made before changing anything.',
        signature: 'sig',
      },
      { type: 'text', text: "I'll look at how the forecast command fetches data first." },
      {
        type: 'tool_use',
        id: 'toolu_demo_grep',
        name: 'Grep',
        input: { pattern: 'fetch\\(', path: 'src', output_mode: 'content' },
      },
    ],
    { stop: 'tool_use', usage: { input: 6, cacheRead: 12_400, cacheWrite: 2_100, output: 180 } },
  );
  w.user(
    [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_demo_grep',
        content: 'src/api.ts:14:  const res = await fetch(url);',
      },
    ],
    {
      toolUseResult: {
        mode: 'content',
        numFiles: 1,
        filenames: ['src/api.ts'],
        content: 'src/api.ts:14:  const res = await fetch(url);',
      },
    },
  );
  w.assistant(
    [
      {
        type: 'tool_use',
        id: 'toolu_demo_read',
        name: 'Read',
        input: { file_path: `${PROJECT}/src/api.ts` },
      },
    ],
    { stop: 'tool_use', usage: { input: 4, cacheRead: 14_500, cacheWrite: 400, output: 60 } },
  );
  const apiSource = [
    "import { URL } from 'node:url';",
    '',
    'export async function getForecast(city: string): Promise<Forecast> {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source written into the demo session
    '  const url = new URL(`/v1/forecast?city=${encodeURIComponent(city)}`, BASE);',
    '  const res = await fetch(url);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source written into the demo session
    '  if (!res.ok) throw new Error(`forecast failed: ${res.status}`);',
    '  return (await res.json()) as Forecast;',
    '}',
  ].join('\n');
  w.user([{ type: 'tool_result', tool_use_id: 'toolu_demo_read', content: apiSource }], {
    toolUseResult: {
      type: 'text',
      file: { filePath: `${PROJECT}/src/api.ts`, content: apiSource, numLines: 8 },
    },
  });
  w.assistant(
    [
      {
        type: 'text',
        text: 'The request has no timeout. I will wrap it in an AbortSignal.timeout and retry twice on network errors.',
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_edit',
        name: 'Edit',
        input: {
          file_path: `${PROJECT}/src/api.ts`,
          old_string: '  const res = await fetch(url);',
          new_string:
            '  const res = await withRetry(() => fetch(url, { signal: AbortSignal.timeout(5_000) }), 2);',
        },
      },
    ],
    { stop: 'tool_use', usage: { input: 4, cacheRead: 15_100, cacheWrite: 300, output: 320 } },
  );
  w.user([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_demo_edit',
      content: `The file ${PROJECT}/src/api.ts has been updated.`,
    },
  ]);
  w.system('turn_duration', { durationMs: 41_000 });

  // A second prompt: a subagent reviews the change.
  w.user('Ask a reviewer to check the retry logic for edge cases.');
  const spawnUuid = w.assistant(
    [
      {
        type: 'tool_use',
        id: 'toolu_demo_task',
        name: 'Task',
        input: {
          description: 'Review retry logic',
          subagent_type: 'code-reviewer',
          prompt:
            'Review src/api.ts: does withRetry handle aborts, 4xx responses and the last failure correctly?',
        },
      },
    ],
    { stop: 'tool_use', usage: { input: 4, cacheRead: 16_000, cacheWrite: 700, output: 140 } },
  );

  const sub = claudeWriter(sid, clock(tick(1)), { isSidechain: true, agentId });
  sub.user('Review src/api.ts: does withRetry handle aborts, 4xx responses and the last failure correctly?');
  sub.assistant(
    [
      {
        type: 'tool_use',
        id: 'toolu_demo_sub_read',
        name: 'Read',
        input: { file_path: `${PROJECT}/src/retry.ts` },
      },
    ],
    { stop: 'tool_use', usage: { input: 3, cacheRead: 4_000, cacheWrite: 1_200, output: 50 } },
  );
  sub.user([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_demo_sub_read',
      content: 'export async function withRetry<T>(fn: () => Promise<T>, times: number): Promise<T> { … }',
    },
  ]);
  sub.assistant(
    [
      {
        type: 'text',
        text: 'Two issues: a 4xx response is retried although it will not change, and an abort by the caller is retried too. Retry only on network errors and 5xx.',
      },
    ],
    { usage: { input: 3, cacheRead: 5_200, cacheWrite: 300, output: 210 } },
  );
  writeFileSync(join(dir, sid, 'subagents', `agent-${agentId}.jsonl`), jsonl(sub.records));
  writeFileSync(
    join(dir, sid, 'subagents', `agent-${agentId}.meta.json`),
    JSON.stringify({ agentType: 'code-reviewer', spawnDepth: 1 }),
  );

  w.user(
    [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_demo_task',
        content: [
          {
            type: 'text',
            text: 'Two issues: a 4xx response is retried although it will not change, and an abort by the caller is retried too.',
          },
        ],
      },
    ],
    {
      toolUseResult: {
        status: 'completed',
        agentId,
        prompt:
          'Review src/api.ts: does withRetry handle aborts, 4xx responses and the last failure correctly?',
        totalDurationMs: 18_000,
        totalToolUseCount: 1,
      },
      sourceToolAssistantUUID: spawnUuid,
    },
  );
  w.assistant(
    [
      {
        type: 'text',
        text: 'Good catches. I will only retry on network errors and 5xx responses, and never after an abort.',
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_bash',
        name: 'Bash',
        input: { command: 'npm test -- api', description: 'Run the API tests' },
      },
    ],
    { stop: 'tool_use', usage: { input: 4, cacheRead: 17_300, cacheWrite: 500, output: 260 } },
  );
  w.user(
    [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_demo_bash',
        content: ' ✓ api.test.ts (6 tests) 412ms\n\n Test Files  1 passed (1)\n      Tests  6 passed (6)',
      },
    ],
    {
      toolUseResult: { stdout: ' ✓ api.test.ts (6 tests) 412ms', stderr: '', interrupted: false },
    },
  );
  w.assistant(
    [
      {
        type: 'text',
        text: 'All six API tests pass. The forecast command now gives up after 5 s per attempt and retries twice.',
      },
    ],
    {
      usage: { input: 4, cacheRead: 17_900, cacheWrite: 200, output: 90 },
    },
  );
  w.system('turn_duration', { durationMs: 63_000 });

  // The context filled up: Claude Code compacts and goes on from a summary.
  w.system('compact_boundary', {
    content: 'Conversation compacted',
    compactMetadata: { trigger: 'auto', preTokens: 158_204 },
  });
  w.user(
    'This session is being continued from a previous conversation. Summary: added a 5 s timeout and a retry limited to network errors and 5xx responses to getForecast; tests pass.',
    {
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
    },
  );
  w.user('Now document the new behaviour in the README.');
  w.assistant(
    [
      {
        type: 'tool_use',
        id: 'toolu_demo_write',
        name: 'Edit',
        input: {
          file_path: `${PROJECT}/README.md`,
          old_string: '## Usage',
          new_string: '## Usage\n\nRequests time out after 5 s and are retried twice on network errors.',
        },
      },
    ],
    { stop: 'tool_use', usage: { input: 4, cacheRead: 9_000, cacheWrite: 3_000, output: 120 } },
  );
  w.user([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_demo_write',
      content: `The file ${PROJECT}/README.md has been updated.`,
    },
  ]);
  w.assistant([{ type: 'text', text: 'The README now explains the timeout and the retries.' }], {
    usage: { input: 4, cacheRead: 12_000, cacheWrite: 100, output: 40 },
  });
  w.system('turn_duration', { durationMs: 12_000 });

  const main = join(dir, `${sid}.jsonl`);
  writeFileSync(
    main,
    jsonl([...w.records, { type: 'ai-title', sessionId: sid, aiTitle: 'Timeout and retry for forecasts' }]),
  );
  return [main, join(dir, sid, 'subagents', `agent-${agentId}.jsonl`)];
}

/** A short session whose text holds markup, the kind a viewer must show as text. */
export function writeClaudeEscapingSession(home: string, start: number): string[] {
  const sid = randomUUID();
  const dir = join(home, '.claude', 'projects', mungedCwd(PROJECT));
  mkdirSync(dir, { recursive: true });
  const w = claudeWriter(sid, clock(start));
  w.user(
    'City names from the API end up in the HTML report unescaped. A city called <script>alert(1)</script> would run. Fix it.',
  );
  w.assistant(
    [
      {
        type: 'text',
        text: 'Right: `<img src=x onerror=alert(1)>` in a name would run too. I will escape `&`, `<`, `>`, `"` and `\'` before interpolating.',
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_esc',
        name: 'Edit',
        input: {
          file_path: `${PROJECT}/src/report.ts`,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source written into the demo session
          old_string: '`<td>${city}</td>`',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source written into the demo session
          new_string: '`<td>${escapeHtml(city)}</td>`',
        },
      },
    ],
    { stop: 'tool_use' },
  );
  w.user([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_demo_esc',
      content: `The file ${PROJECT}/src/report.ts has been updated.`,
    },
  ]);
  w.assistant([
    { type: 'text', text: 'Done: the report escapes every city name, so `<script>` shows as text.' },
  ]);
  const main = join(dir, `${sid}.jsonl`);
  writeFileSync(main, jsonl(w.records));
  return [main];
}
