// The demo sessions of Copilot CLI: session-state/<id>/events.jsonl, events chained by parentId,
// and workspace.yaml.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, jsonl, PROJECT } from './records.js';

export function writeCopilotSession(home: string, start: number): string {
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
