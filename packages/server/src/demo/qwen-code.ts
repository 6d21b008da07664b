// The demo sessions of Qwen Code: one JSONL chat file, records chained by parentUuid.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, jsonl, mungedCwd, PROJECT } from './records.js';

export function writeQwenSession(home: string, start: number): string {
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
