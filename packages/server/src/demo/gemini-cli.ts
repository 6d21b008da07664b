// The demo sessions of Gemini CLI: one session in the single-JSON form.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, PROJECT } from './records.js';

export function writeGeminiSession(home: string, start: number): string {
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
