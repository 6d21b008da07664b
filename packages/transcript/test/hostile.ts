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
