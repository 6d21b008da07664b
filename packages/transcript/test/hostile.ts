// Hand-made hostile sessions of each agent, written into a temporary home. Shared by the
// library's, the CLI's and the server's tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** JSON text of `levels` arrays nested in one another. */
export const deepArrays = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** JSON text of `value` where every string "<DEEP>" stands for `deep` as raw JSON. */
const withDeep = (value: unknown, deep: string): string => JSON.stringify(value).split('"<DEEP>"').join(deep);

export interface DeepSessions {
  claude: { id: string; path: string };
  gemini: { id: string; path: string };
  codex: { id: string; path: string };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, s)).toISOString();

/**
 * One session of each agent, each with a value nested `levels` deep where a tool's input, a
 * tool's response and a hook's output go, between ordinary records.
 */
export function writeDeepSessions(home: string, levels = 10_000): DeepSessions {
  const deep = deepArrays(levels);
  const claudeId = '0d0d0d0d-0000-4000-8000-00000000dee9';
  const claudeDir = join(home, '.claude/projects/-tmp-deep');
  mkdirSync(claudeDir, { recursive: true });
  const env = { sessionId: claudeId, cwd: '/tmp/deep', version: '2.1.50', isSidechain: false };
  const claudeLines = [
    { ...env, type: 'user', uuid: 'u1', timestamp: at(0), message: { role: 'user', content: 'go deep' } },
    {
      ...env,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      requestId: 'req_1',
      timestamp: at(1),
      message: {
        id: 'msg_1',
        model: 'claude-x',
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_deep', name: 'Bash', input: { command: 'ls', nest: '<DEEP>' } },
        ],
        usage: { input_tokens: 3, output_tokens: 4 },
      },
    },
    {
      ...env,
      type: 'user',
      uuid: 'u2',
      parentUuid: 'a1',
      timestamp: at(2),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_deep', content: 'ok' }] },
    },
    {
      ...env,
      type: 'attachment',
      uuid: 'h1',
      parentUuid: 'u2',
      timestamp: at(3),
      attachment: {
        type: 'hook_success',
        hookEvent: 'PostToolUse',
        hookName: 'PostToolUse:Bash',
        content: '<DEEP>',
      },
    },
    {
      ...env,
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'h1',
      requestId: 'req_2',
      timestamp: at(4),
      message: {
        id: 'msg_2',
        model: 'claude-x',
        role: 'assistant',
        content: [{ type: 'text', text: 'after the deep value' }],
        usage: { input_tokens: 5, output_tokens: 6 },
      },
    },
  ];
  const claudePath = join(claudeDir, `${claudeId}.jsonl`);
  writeFileSync(claudePath, claudeLines.map((l) => `${withDeep(l, deep)}\n`).join(''));

  const geminiId = '0e0e0e0e-0000-4000-8000-00000000dee9';
  const hash = 'd'.repeat(64);
  const geminiDir = join(home, '.gemini/tmp', hash, 'chats');
  mkdirSync(geminiDir, { recursive: true });
  const doc = {
    sessionId: geminiId,
    projectHash: hash,
    startTime: at(0),
    lastUpdated: at(3),
    messages: [
      { id: 'm1', timestamp: at(0), type: 'user', content: 'go deep' },
      {
        id: 'm2',
        timestamp: at(1),
        type: 'gemini',
        content: 'calling',
        model: 'gemini-x',
        tokens: { input: 10, output: 2, cached: 0, thoughts: 0, tool: 0, total: 12 },
        toolCalls: [
          {
            id: 'call_deep',
            name: 'read_file',
            args: { path: 'a', nest: '<DEEP>' },
            status: 'success',
            timestamp: at(2),
            result: [
              { functionResponse: { id: 'call_deep', name: 'read_file', response: { nest: '<DEEP>' } } },
            ],
          },
        ],
      },
      { id: 'm3', timestamp: at(3), type: 'gemini', content: 'after the deep value' },
    ],
  };
  const geminiPath = join(geminiDir, 'session-2026-01-02T03-04-0e0e0e0e.json');
  writeFileSync(geminiPath, withDeep(doc, deep));

  const codexId = '019b0000-0000-7000-8000-00000000dee9';
  const codexDir = join(home, '.codex/sessions/2026/01/02');
  mkdirSync(codexDir, { recursive: true });
  const codexLines = [
    {
      timestamp: at(0),
      type: 'session_meta',
      payload: {
        id: codexId,
        timestamp: at(0),
        cwd: '/tmp/deep',
        originator: 'codex_cli_rs',
        cli_version: '0.47.0',
      },
    },
    {
      timestamp: at(1),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go deep' }] },
    },
    {
      timestamp: at(2),
      type: 'response_item',
      payload: { type: 'function_call', name: 'shell', arguments: `{"nest":${deep}}`, call_id: 'call_deep' },
    },
    {
      timestamp: at(3),
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'call_deep', output: { nest: '<DEEP>' } },
    },
    {
      timestamp: at(4),
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'after the deep value' }],
      },
    },
  ];
  const codexPath = join(codexDir, `rollout-2026-01-02T03-04-00-${codexId}.jsonl`);
  writeFileSync(codexPath, codexLines.map((l) => `${withDeep(l, deep)}\n`).join(''));

  return {
    claude: { id: claudeId, path: claudePath },
    gemini: { id: geminiId, path: geminiPath },
    codex: { id: codexId, path: codexPath },
  };
}

/** Timestamps no contract date can hold, and counts no contract count can: each appears in the odd sessions. */
export const ODD_TIMESTAMPS: readonly unknown[] = [1e300, '1969-07-20T20:17:40.000Z', -5, 'not a date', true];
export const ODD_COUNTS: readonly unknown[] = [-5, 1.5, 1e300, 1e308, 'many'];

/**
 * One session of each agent whose records carry, one each, the timestamps of ODD_TIMESTAMPS and
 * token counts, durations and exit codes of ODD_COUNTS, between records with ordinary values.
 * Every reply says `reply <n>`; the last one is `the last reply`.
 */
export function writeOddNumberSessions(home: string): DeepSessions {
  const claudeId = '0a0a0a0a-0000-4000-8000-0000000000dd';
  const claudeDir = join(home, '.claude/projects/-tmp-odd');
  mkdirSync(claudeDir, { recursive: true });
  const env = { sessionId: claudeId, cwd: '/tmp/odd', version: '2.1.50', isSidechain: false };
  const claude: unknown[] = [
    { ...env, type: 'user', uuid: 'u0', timestamp: at(0), message: { role: 'user', content: 'count oddly' } },
  ];
  ODD_TIMESTAMPS.forEach((timestamp, i) => {
    const odd = ODD_COUNTS[i];
    claude.push(
      {
        ...env,
        type: 'assistant',
        uuid: `a${i}`,
        requestId: `req_${i}`,
        timestamp,
        message: {
          id: `msg_${i}`,
          model: 'claude-x',
          role: 'assistant',
          content: [
            { type: 'text', text: `reply ${i}` },
            { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: 'true' } },
          ],
          usage: { input_tokens: odd, output_tokens: odd, cache_read_input_tokens: 1e308 },
        },
      },
      {
        ...env,
        type: 'user',
        uuid: `r${i}`,
        timestamp: at(i + 1),
        toolUseResult: { durationMs: odd },
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: 'ok' }],
        },
      },
      {
        ...env,
        type: 'attachment',
        uuid: `h${i}`,
        timestamp,
        attachment: {
          type: 'hook_success',
          hookEvent: 'Stop',
          exitCode: odd,
          durationMs: odd,
          content: 'done',
        },
      },
    );
  });
  claude.push({
    ...env,
    type: 'assistant',
    uuid: 'last',
    requestId: 'req_last',
    timestamp: at(30),
    message: {
      id: 'msg_last',
      model: 'claude-x',
      role: 'assistant',
      content: [{ type: 'text', text: 'the last reply' }],
      usage: { input_tokens: 7, output_tokens: 8 },
    },
  });
  const claudePath = join(claudeDir, `${claudeId}.jsonl`);
  writeFileSync(claudePath, claude.map((l) => `${JSON.stringify(l)}\n`).join(''));

  const geminiId = '0b0b0b0b-0000-4000-8000-0000000000dd';
  const hash = 'e'.repeat(64);
  const geminiDir = join(home, '.gemini/tmp', hash, 'chats');
  mkdirSync(geminiDir, { recursive: true });
  const messages: unknown[] = [{ id: 'm0', timestamp: at(0), type: 'user', content: 'count oddly' }];
  ODD_TIMESTAMPS.forEach((timestamp, i) => {
    const odd = ODD_COUNTS[i];
    messages.push({
      id: `m${i + 1}`,
      timestamp,
      type: 'gemini',
      content: `reply ${i}`,
      model: 'gemini-x',
      tokens: { input: odd, output: odd, cached: 0, thoughts: 1e308, tool: 0, total: odd },
      toolCalls: [
        { id: `call_${i}`, name: 'read_file', args: {}, status: 'success', timestamp, result: 'ok' },
      ],
    });
  });
  messages.push({ id: 'mlast', timestamp: at(30), type: 'gemini', content: 'the last reply' });
  const geminiPath = join(geminiDir, 'session-2026-01-02T03-04-0b0b0b0b.json');
  writeFileSync(
    geminiPath,
    JSON.stringify({
      sessionId: geminiId,
      projectHash: hash,
      startTime: at(0),
      lastUpdated: at(30),
      messages,
    }),
  );

  const codexId = '019b0000-0000-7000-8000-0000000000dd';
  const codexDir = join(home, '.codex/sessions/2026/01/02');
  mkdirSync(codexDir, { recursive: true });
  const codex: unknown[] = [
    {
      timestamp: at(0),
      type: 'session_meta',
      payload: {
        id: codexId,
        timestamp: at(0),
        cwd: '/tmp/odd',
        originator: 'codex_cli_rs',
        cli_version: '0.47.0',
      },
    },
    {
      timestamp: at(0),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'count oddly' }] },
    },
  ];
  ODD_TIMESTAMPS.forEach((timestamp, i) => {
    const odd = ODD_COUNTS[i];
    const usage = { input_tokens: odd, output_tokens: odd, cached_input_tokens: 1e308, total_tokens: odd };
    codex.push(
      {
        timestamp,
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: `reply ${i}` }],
        },
      },
      {
        timestamp,
        type: 'event_msg',
        payload: { type: 'token_count', info: { last_token_usage: usage, total_token_usage: usage } },
      },
      { timestamp, type: 'event_msg', payload: { type: 'task_complete', duration_ms: odd, exit_code: odd } },
    );
  });
  codex.push({
    timestamp: at(30),
    type: 'response_item',
    payload: {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'the last reply' }],
    },
  });
  const codexPath = join(codexDir, `rollout-2026-01-02T03-04-00-${codexId}.jsonl`);
  writeFileSync(codexPath, codex.map((l) => `${JSON.stringify(l)}\n`).join(''));

  return {
    claude: { id: claudeId, path: claudePath },
    gemini: { id: geminiId, path: geminiPath },
    codex: { id: codexId, path: codexPath },
  };
}
