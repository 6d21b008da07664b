// The demo sessions of pi: one JSONL file, a header and entries chained by parentId.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, jsonl, PROJECT } from './records.js';

export function writePiSession(home: string, start: number): string {
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
