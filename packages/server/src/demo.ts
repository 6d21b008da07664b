// Demo sessions for a machine with no agent sessions at all: a few short, realistic sessions written
// in each supported agent's own file format into a temporary home, never into the real agent
// folders, so that a first start shows what cairn does.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DemoHome {
  /** Stands for the user's home: `.claude`, `.codex`, `.gemini` and `.qwen` are inside. */
  readonly home: string;
  /** A cairn home of its own, so the demo's index never mixes with a real one. */
  readonly cairnHome: string;
  /** The environment that points every agent at `home`. */
  readonly env: Record<string, string>;
  /** The session files written, by agent. */
  readonly files: Record<
    'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'pi' | 'copilot-cli' | 'opencode' | 'kilo',
    string[]
  >;
  remove(): void;
}

const PROJECT = '/home/demo/src/weather-cli';

/** Writes the demo sessions under a new temporary folder. `now` places them in time. */
export function makeDemoHome(now = Date.now()): DemoHome {
  const root = mkdtempSync(join(tmpdir(), 'cairn-demo-'));
  const home = join(root, 'home');
  const cairnHome = join(root, 'cairn');
  mkdirSync(home, { recursive: true });
  const files = {
    'claude-code': [
      ...writeClaudeSession(home, now - 3 * 3_600_000),
      ...writeClaudeEscapingSession(home, now - 26 * 3_600_000),
    ],
    codex: [writeCodexRollout(home, now - 5 * 3_600_000)],
    'gemini-cli': [writeGeminiSession(home, now - 30 * 3_600_000)],
    'qwen-code': [writeQwenSession(home, now - 50 * 3_600_000)],
    pi: [writePiSession(home, now - 70 * 3_600_000)],
    'copilot-cli': [writeCopilotSession(home, now - 90 * 3_600_000)],
    opencode: writeOpenCodeSession(home, now - 110 * 3_600_000, 'opencode'),
    kilo: writeOpenCodeSession(home, now - 130 * 3_600_000, 'kilo'),
  };
  return {
    home,
    cairnHome,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CODEX_HOME: join(home, '.codex'),
      GEMINI_CLI_HOME: home,
      // Both: Qwen Code keeps sessions under its runtime folder, which the second variable moves.
      QWEN_HOME: join(home, '.qwen'),
      QWEN_RUNTIME_DIR: join(home, '.qwen'),
      // Both: the second one alone would move pi's sessions out of its agent folder.
      PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
      PI_CODING_AGENT_SESSION_DIR: join(home, '.pi', 'agent', 'sessions'),
      COPILOT_HOME: join(home, '.copilot'),
      // OpenCode and Kilo keep their data under the XDG data folder.
      XDG_DATA_HOME: join(home, '.local', 'share'),
      CAIRN_HOME: cairnHome,
    },
    files,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const jsonl = (records: readonly object[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const mungedCwd = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, '-');

/** A clock that moves a few seconds per record. */
function clock(start: number) {
  let t = start;
  return (seconds = 3): number => {
    t += seconds * 1000;
    return t;
  };
}

// --- Claude Code: a main file, a subagent's file, a compaction ---

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

function writeClaudeSession(home: string, start: number): string[] {
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
function writeClaudeEscapingSession(home: string, start: number): string[] {
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

// --- Codex: one rollout ---

function writeCodexRollout(home: string, start: number): string {
  const id = randomUUID();
  const tick = clock(start);
  const day = new Date(start);
  const y = String(day.getUTCFullYear());
  const m = String(day.getUTCMonth() + 1).padStart(2, '0');
  const d = String(day.getUTCDate()).padStart(2, '0');
  const dir = join(home, '.codex', 'sessions', y, m, d);
  mkdirSync(dir, { recursive: true });
  const stamp = iso(start).slice(0, 19).replaceAll(':', '-');
  const path = join(dir, `rollout-${stamp}-${id}.jsonl`);
  const rec = (type: string, payload: object) => ({ timestamp: iso(tick(2)), type, payload });
  let total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  const tokens = (input: number, cached: number, output: number, reasoning: number) => {
    const last = {
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: reasoning,
      total_tokens: input + output,
    };
    total = {
      input_tokens: total.input_tokens + input,
      cached_input_tokens: total.cached_input_tokens + cached,
      output_tokens: total.output_tokens + output,
      reasoning_output_tokens: total.reasoning_output_tokens + reasoning,
      total_tokens: total.total_tokens + input + output,
    };
    return rec('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 272_000 },
    });
  };
  const prompt = 'Add a --units flag to the forecast command (metric or imperial, metric by default).';
  const turn = randomUUID();
  const records = [
    rec('session_meta', {
      id,
      timestamp: iso(start),
      cwd: PROJECT,
      originator: 'codex_cli_rs',
      cli_version: '0.104.0',
      source: 'cli',
      model_provider: 'openai',
    }),
    rec('response_item', {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: `<environment_context>\n  <cwd>${PROJECT}</cwd>\n</environment_context>`,
        },
      ],
    }),
    rec('event_msg', { type: 'task_started', turn_id: turn, model_context_window: 272_000 }),
    rec('turn_context', {
      turn_id: turn,
      cwd: PROJECT,
      approval_policy: 'on-request',
      sandbox_policy: { mode: 'workspace-write' },
      model: 'gpt-5-codex',
      effort: 'medium',
      summary: 'auto',
    }),
    rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }),
    rec('event_msg', { type: 'user_message', message: prompt, images: [] }),
    rec('event_msg', { type: 'agent_reasoning', text: '**Finding the argument parser**' }),
    rec('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: '**Finding the argument parser**' }],
      content: null,
      encrypted_content: 'gAAAAdemo',
    }),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: 'rg -n "parseArgs" src', workdir: PROJECT }),
      call_id: 'call_demo_rg',
    }),
    tokens(9_800, 3_200, 160, 64),
    rec('event_msg', {
      type: 'exec_command_end',
      call_id: 'call_demo_rg',
      exit_code: 0,
      aggregated_output:
        'src/cli.ts:8:const { values } = parseArgs({ options: { city: { type: "string" } } });\n',
    }),
    rec('response_item', {
      type: 'function_call_output',
      call_id: 'call_demo_rg',
      output: 'src/cli.ts:8:const { values } = parseArgs({ options: { city: { type: "string" } } });\n',
    }),
    rec('response_item', {
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_demo_patch',
      name: 'apply_patch',
      input:
        '*** Begin Patch\n*** Update File: src/cli.ts\n@@\n-const { values } = parseArgs({ options: { city: { type: "string" } } });\n+const { values } = parseArgs({\n+  options: { city: { type: "string" }, units: { type: "string", default: "metric" } },\n+});\n*** End Patch\n',
    }),
    tokens(10_400, 9_600, 220, 32),
    rec('event_msg', {
      type: 'patch_apply_end',
      call_id: 'call_demo_patch',
      success: true,
      stdout: 'Success. Updated the following files:\nM src/cli.ts\n',
      stderr: '',
    }),
    rec('response_item', {
      type: 'custom_tool_call_output',
      call_id: 'call_demo_patch',
      output: JSON.stringify({
        output: 'Success. Updated the following files:\nM src/cli.ts\n',
        metadata: { exit_code: 0, duration_seconds: 0.0 },
      }),
    }),
    rec('event_msg', {
      type: 'agent_message',
      message: 'Added `--units metric|imperial` (metric by default) and passed it on to `getForecast`.',
    }),
    rec('response_item', {
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'output_text',
          text: 'Added `--units metric|imperial` (metric by default) and passed it on to `getForecast`.',
        },
      ],
    }),
    tokens(10_900, 10_300, 95, 0),
    rec('event_msg', {
      type: 'task_complete',
      turn_id: turn,
      last_agent_message: 'Added `--units`.',
      duration_ms: 21_000,
    }),
  ];
  writeFileSync(path, jsonl(records));
  return path;
}

// --- Gemini CLI: one session in the single-JSON form ---

function writeGeminiSession(home: string, start: number): string {
  const sessionId = randomUUID();
  const projectHash = 'demo0000weathercli';
  const dir = join(home, '.gemini', 'tmp', projectHash, 'chats');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gemini', 'tmp', projectHash, '.project_root'), PROJECT);
  const tick = clock(start);
  const stamp = iso(start).slice(0, 16).replace(':', '-');
  const callAt = tick(4);
  const messages = [
    {
      id: randomUUID(),
      timestamp: iso(tick()),
      type: 'user',
      content: 'Why does `npm run build` print a warning about an unused import?',
    },
    {
      id: randomUUID(),
      timestamp: iso(tick(6)),
      type: 'gemini',
      content: 'Let me look at the file the warning names.',
      thoughts: [
        {
          subject: 'Reading the warning',
          description: 'The warning names src/format.ts; I should read it.',
          timestamp: iso(callAt),
        },
      ],
      tokens: { input: 6_200, output: 80, cached: 2_000, thoughts: 24, tool: 0, total: 6_304 },
      model: 'gemini-2.5-pro',
      toolCalls: [
        {
          id: `read_file-${callAt}-demo`,
          name: 'read_file',
          args: { absolute_path: `${PROJECT}/src/format.ts` },
          result: [
            {
              functionResponse: {
                id: `read_file-${callAt}-demo`,
                name: 'read_file',
                response: {
                  output:
                    "import { inspect } from 'node:util';\n\nexport const celsius = (k: number) => k - 273.15;\n",
                },
              },
            },
          ],
          status: 'success',
          timestamp: iso(callAt),
          displayName: 'ReadFile',
        },
      ],
    },
    {
      id: randomUUID(),
      timestamp: iso(tick(5)),
      type: 'gemini',
      content:
        '`inspect` is imported from `node:util` but never used in `src/format.ts`; removing that import clears the warning.',
      thoughts: [],
      tokens: { input: 6_900, output: 60, cached: 6_100, thoughts: 0, tool: 0, total: 6_960 },
      model: 'gemini-2.5-pro',
    },
  ];
  const path = join(dir, `session-${stamp}-${sessionId.slice(0, 8)}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ sessionId, projectHash, startTime: iso(start), lastUpdated: iso(tick()), messages }, null, 2)}\n`,
  );
  return path;
}

// --- Qwen Code: one JSONL chat file, records chained by parentUuid ---

function writeQwenSession(home: string, start: number): string {
  const sessionId = randomUUID();
  const dir = join(home, '.qwen', 'projects', mungedCwd(PROJECT), 'chats');
  mkdirSync(dir, { recursive: true });
  const tick = clock(start);
  let parentUuid: string | null = null;
  const rec = (type: string, fields: object) => {
    const uuid = randomUUID();
    const r = {
      uuid,
      parentUuid,
      sessionId,
      timestamp: iso(tick()),
      type,
      cwd: PROJECT,
      version: '0.21.13',
      gitBranch: 'main',
      ...fields,
    };
    parentUuid = uuid;
    return r;
  };
  const model = 'qwen3-coder-plus';
  const usage = (prompt: number, cached: number, output: number, thoughts: number) => ({
    promptTokenCount: prompt,
    cachedContentTokenCount: cached,
    candidatesTokenCount: output,
    thoughtsTokenCount: thoughts,
    totalTokenCount: prompt + output,
  });
  const prompt = 'The `--city` flag ignores spaces: "New York" finds nothing. Can you fix it?';
  const records = [
    rec('user', {
      message: { role: 'user', parts: [{ text: prompt }] },
      systemPayload: { displayText: prompt },
    }),
    rec('assistant', {
      model,
      message: {
        role: 'model',
        parts: [
          {
            text: 'The city name probably reaches the API unencoded. I should grep for where the URL is built.',
            thought: true,
          },
          {
            functionCall: {
              id: 'call_demo_grep',
              name: 'grep_search',
              args: { pattern: 'weather\\?q=', path: 'src' },
            },
          },
        ],
      },
      usageMetadata: usage(7_400, 0, 96, 38),
    }),
    rec('tool_result', {
      message: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_demo_grep',
              name: 'grep_search',
              response: {
                output: "src/api.ts:12:  const url = BASE + '/weather?q=' + city + '&units=' + units;",
              },
            },
          },
        ],
      },
      toolCallResult: { callId: 'call_demo_grep', status: 'success' },
    }),
    rec('assistant', {
      model,
      message: {
        role: 'model',
        parts: [
          { text: 'Found it: `city` goes into the query string as is. Encoding it fixes names with spaces.' },
          {
            functionCall: {
              id: 'call_demo_edit',
              name: 'edit',
              args: {
                file_path: `${PROJECT}/src/api.ts`,
                old_string: "'/weather?q=' + city",
                new_string: "'/weather?q=' + encodeURIComponent(city)",
              },
            },
          },
        ],
      },
      usageMetadata: usage(7_650, 7_200, 140, 0),
    }),
    rec('tool_result', {
      message: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_demo_edit',
              name: 'edit',
              response: { output: `The file: ${PROJECT}/src/api.ts has been updated.` },
            },
          },
        ],
      },
      toolCallResult: { callId: 'call_demo_edit', status: 'success' },
    }),
    rec('assistant', {
      model,
      message: {
        role: 'model',
        parts: [
          {
            functionCall: {
              id: 'call_demo_test',
              name: 'run_shell_command',
              args: { command: 'npm test -- api', description: 'Run the API tests' },
            },
          },
        ],
      },
      usageMetadata: usage(7_900, 7_500, 40, 0),
    }),
    rec('tool_result', {
      message: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_demo_test',
              name: 'run_shell_command',
              response: {
                output:
                  'PASS test/api.test.ts\n  ✓ builds the forecast URL (3 ms)\n  ✓ encodes city names (1 ms)',
              },
            },
          },
        ],
      },
      toolCallResult: { callId: 'call_demo_test', status: 'success' },
    }),
    rec('assistant', {
      model,
      message: {
        role: 'model',
        parts: [
          {
            text: '`src/api.ts` now encodes the city name, so `--city "New York"` works; the API tests pass.',
          },
        ],
      },
      usageMetadata: usage(8_100, 7_800, 35, 0),
    }),
  ];
  const path = join(dir, `${sessionId}.jsonl`);
  writeFileSync(path, jsonl(records));
  return path;
}

// --- pi: one JSONL file, a header and entries chained by parentId ---

function writePiSession(home: string, start: number): string {
  const sessionId = randomUUID();
  const dir = join(
    home,
    '.pi',
    'agent',
    'sessions',
    `--${PROJECT.replace(/^\//, '').replace(/[/\\:]/g, '-')}--`,
  );
  mkdirSync(dir, { recursive: true });
  const tick = clock(start);
  let parentId: string | null = null;
  const entry = (type: string, fields: object) => {
    const id = randomUUID().slice(0, 8);
    const r = { type, id, parentId, timestamp: iso(tick()), ...fields };
    parentId = id;
    return r;
  };
  const model = 'claude-sonnet-4-5';
  const answer = (
    content: object[],
    input: number,
    cacheRead: number,
    output: number,
    stopReason: string,
  ) => ({
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model,
    usage: {
      input,
      output,
      cacheRead,
      cacheWrite: 0,
      totalTokens: input + output + cacheRead,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
    timestamp: tick(0),
  });
  const result = (toolCallId: string, toolName: string, text: string) => ({
    role: 'toolResult',
    toolCallId,
    toolName,
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: tick(0),
  });
  const records = [
    { type: 'session', version: 3, id: sessionId, timestamp: iso(start), cwd: PROJECT },
    entry('model_change', { provider: 'anthropic', modelId: model }),
    entry('thinking_level_change', { thinkingLevel: 'medium' }),
    entry('message', {
      message: {
        role: 'user',
        content: [{ type: 'text', text: 'Add a --units flag (metric or imperial) to the forecast command.' }],
        timestamp: tick(0),
      },
    }),
    entry('message', {
      message: answer(
        [
          { type: 'thinking', thinking: 'Units are hard-coded somewhere in the API call; find them first.' },
          {
            type: 'toolCall',
            id: 'toolu_demo_grep',
            name: 'bash',
            arguments: { command: 'grep -rn units src' },
          },
        ],
        2_100,
        0,
        84,
        'toolUse',
      ),
    }),
    entry('message', {
      message: result('toolu_demo_grep', 'bash', "src/api.ts:12:  const url = BASE + '&units=metric';"),
    }),
    entry('message', {
      message: answer(
        [
          { type: 'text', text: 'The units are fixed in `src/api.ts`; I will pass them through.' },
          {
            type: 'toolCall',
            id: 'toolu_demo_edit',
            name: 'edit',
            arguments: { path: 'src/api.ts', oldText: "'&units=metric'", newText: "'&units=' + units" },
          },
        ],
        120,
        2_150,
        130,
        'toolUse',
      ),
    }),
    entry('message', { message: result('toolu_demo_edit', 'edit', 'Edited src/api.ts.') }),
    entry('message', {
      message: answer(
        [{ type: 'text', text: '`forecast --units imperial` now asks the API for Fahrenheit.' }],
        90,
        2_300,
        40,
        'stop',
      ),
    }),
    entry('session_info', { name: 'Add a --units flag' }),
  ];
  const stamp = iso(start).replace(/[:.]/g, '-');
  const path = join(dir, `${stamp}_${sessionId}.jsonl`);
  writeFileSync(path, jsonl(records));
  return path;
}

// --- Copilot CLI: session-state/<id>/events.jsonl, events chained by parentId, and workspace.yaml ---

function writeCopilotSession(home: string, start: number): string {
  const sessionId = randomUUID();
  const dir = join(home, '.copilot', 'session-state', sessionId);
  mkdirSync(dir, { recursive: true });
  const tick = clock(start);
  let parentId: string | null = null;
  const event = (type: string, data: object) => {
    const id = randomUUID();
    const r = { type, data, id, timestamp: iso(tick()), parentId };
    parentId = id;
    return r;
  };
  const model = 'claude-sonnet-4.5';
  const prompt = 'Why does `forecast` print the wind speed in knots?';
  const records = [
    event('session.start', {
      sessionId,
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.11',
      startTime: iso(start),
      context: { cwd: PROJECT, gitRoot: PROJECT, branch: 'main' },
    }),
    event('session.model_change', { newModel: model }),
    event('user.message', { content: prompt, transformedContent: prompt, attachments: [] }),
    event('assistant.turn_start', { turnId: '0' }),
    event('assistant.message', {
      messageId: randomUUID(),
      model,
      content: 'I will look at how the speed is formatted.',
      toolRequests: [
        { toolCallId: 'toolu_demo_view', name: 'view', arguments: { path: `${PROJECT}/src/format.ts` } },
      ],
      outputTokens: 48,
    }),
    event('tool.execution_complete', {
      toolCallId: 'toolu_demo_view',
      success: true,
      result: { content: '12  return (ms * 1.944).toFixed(0) + " kn"; // TODO: units' },
    }),
    event('assistant.message', {
      messageId: randomUUID(),
      model,
      content: '`src/format.ts` converts m/s to knots unconditionally (line 12); it ignores `--units`.',
      toolRequests: [],
      outputTokens: 31,
    }),
    event('assistant.turn_end', { turnId: '0' }),
    event('session.shutdown', {
      shutdownType: 'routine',
      totalPremiumRequests: 1,
      modelMetrics: {
        [model]: {
          requests: { count: 2, cost: 1 },
          usage: { inputTokens: 9_200, outputTokens: 79, cacheReadTokens: 6_100, cacheWriteTokens: 1_900 },
        },
      },
    }),
  ];
  const path = join(dir, 'events.jsonl');
  writeFileSync(path, jsonl(records));
  writeFileSync(
    join(dir, 'workspace.yaml'),
    `id: ${sessionId}\ncwd: ${PROJECT}\nsummary: Wind speed shown in knots\n`,
  );
  return path;
}

// --- OpenCode and Kilo: the JSON storage tree (session, message and part files) ---

function writeOpenCodeSession(home: string, start: number, name: 'opencode' | 'kilo'): string[] {
  const storage = join(home, '.local', 'share', name, 'storage');
  const id = 'ses_demo0000000001';
  const tick = clock(start);
  const written: string[] = [];
  const put = (rel: string[], value: object) => {
    const path = join(storage, ...rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
    written.push(path);
  };
  const model = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };
  const created = tick(0);
  put(['session', 'proj_demo', `${id}.json`], {
    id,
    slug: 'quiet-river',
    version: '1.2.10',
    projectID: 'proj_demo',
    directory: PROJECT,
    title: 'Cache the forecast for ten minutes',
    time: { created, updated: created + 40_000 },
  });
  const user = 'msg_demo0000000001';
  const answer = 'msg_demo0000000002';
  put(['message', id, `${user}.json`], {
    id: user,
    sessionID: id,
    role: 'user',
    time: { created: tick() },
    agent: 'build',
    model,
  });
  const asked = tick();
  const done = asked + 20_000;
  put(['message', id, `${answer}.json`], {
    id: answer,
    sessionID: id,
    role: 'assistant',
    time: { created: asked, completed: done },
    parentID: user,
    mode: 'build',
    path: { cwd: PROJECT, root: PROJECT },
    cost: 0.0121,
    tokens: { input: 812, output: 96, reasoning: 40, cache: { read: 11_200, write: 1_350 } },
    finish: 'stop',
    ...model,
  });
  const part = (message: string, n: number, value: object) =>
    put(['part', message, `prt_demo00000000${n}.json`], {
      id: `prt_demo00000000${n}`,
      sessionID: id,
      messageID: message,
      ...value,
    });
  part(user, 1, {
    type: 'text',
    text: 'Cache the forecast responses for ten minutes so repeated runs stay fast.',
  });
  part(answer, 2, { type: 'step-start' });
  part(answer, 3, {
    type: 'reasoning',
    text: 'The HTTP client is in src/api.ts; a small file cache keyed by URL will do.',
    time: { start: asked + 1_000, end: asked + 2_000 },
  });
  part(answer, 4, {
    type: 'tool',
    callID: 'toolu_demo_oc_grep',
    tool: 'grep',
    state: {
      status: 'completed',
      input: { pattern: 'fetch\\(', path: 'src' },
      output: 'src/api.ts:\n  Line 14: const res = await fetch(url);',
      title: 'fetch\\(',
      metadata: { matches: 1 },
      time: { start: asked + 3_000, end: asked + 3_400 },
    },
  });
  part(answer, 5, {
    type: 'text',
    text: 'The only network call is `fetch(url)` in src/api.ts (line 14); I will wrap it with a ten-minute cache.',
    time: { start: asked + 4_000, end: done },
  });
  part(answer, 6, {
    type: 'step-finish',
    reason: 'stop',
    cost: 0.0121,
    tokens: { input: 812, output: 96, reasoning: 40, cache: { read: 11_200, write: 1_350 } },
  });
  return written;
}
