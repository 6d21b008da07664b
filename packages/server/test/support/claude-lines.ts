// A Claude Code prompt and its reply, as the two JSONL lines Claude Code writes, for tests that grow
// sessions of their own: the reply's request used `usage` with `model`.
export interface ExchangeLines {
  readonly sessionId: string;
  readonly cwd: string;
  /** The exchange's place in the session: it names the lines' uuids, request and message ids. */
  readonly i: number;
  /** Milliseconds since the epoch, for both lines. */
  readonly at: number;
  readonly usage: Record<string, number>;
  readonly model?: string;
}

export function claudeExchange({ sessionId, cwd, i, at, usage, model }: ExchangeLines): string {
  const base = { sessionId, cwd, timestamp: new Date(at).toISOString() };
  const lines = [
    {
      ...base,
      type: 'user',
      uuid: `u${i}`,
      parentUuid: i === 0 ? null : `a${i - 1}`,
      message: { role: 'user', content: `step ${i}` },
    },
    {
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: `u${i}`,
      requestId: `req_${i}`,
      message: {
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: model ?? 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: `done ${i}` }],
        usage,
      },
    },
  ];
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}
