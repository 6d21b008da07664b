// Long sessions written for tests: more records than a call can take as spread arguments, in the
// shapes a long run of each agent writes.
const START = Date.parse('2026-02-23T12:00:00.000Z');
const at = (i: number) => new Date(START + i * 10).toISOString();

/** A Claude Code session of prompts and replies, each record its own uuid, chained. */
export function claudeLines(count: number): string[] {
  const sessionId = '6f1c2a4e-0b7d-4c1e-9a55-3d2f8e7b9c10';
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const parentUuid = i === 0 ? null : `00000000-0000-4000-8000-${String(i - 1).padStart(12, '0')}`;
    const user = i % 2 === 0;
    lines.push(
      JSON.stringify({
        type: user ? 'user' : 'assistant',
        uuid,
        parentUuid,
        sessionId,
        timestamp: at(i),
        message: user
          ? { role: 'user', content: `question ${i}` }
          : {
              id: `msg_${i}`,
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              content: [{ type: 'text', text: `answer ${i}` }],
            },
      }),
    );
  }
  return lines;
}

/** A Codex rollout: its session_meta, then reasoning and replies. */
export function codexLines(count: number): string[] {
  const lines = [
    JSON.stringify({
      timestamp: at(0),
      type: 'session_meta',
      payload: { id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', timestamp: at(0), cwd: '/work/app' },
    }),
  ];
  for (let i = 1; i < count; i++)
    lines.push(
      JSON.stringify({
        timestamp: at(i),
        type: 'response_item',
        payload:
          i % 2 === 0
            ? { type: 'reasoning', summary: [{ type: 'summary_text', text: `step ${i}` }] }
            : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `done ${i}` }] },
      }),
    );
  return lines;
}
