// A followed Gemini CLI session kept as one JSON document, which the CLI rewrites whole at every
// change: each rewrite reaches a subscriber, and the daemon parses and translates only the messages
// that changed, however many came before them. Two sessions, one ten times as long as the other,
// take the same few messages of work per rewrite; the summary the daemon keeps is a whole read's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyWork } from '../../transcript/src/adapters/gemini-cli/legacy.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const T0 = Date.parse('2026-02-03T10:00:00.000Z');
const iso = (n: number) => new Date(T0 + n * 1000).toISOString();
const REWRITES = 8;

type Json = Record<string, unknown>;

/** A conversation as Gemini CLI records it, and the CLI's next change to it. */
class Conversation {
  readonly doc: Json & { messages: Json[] };
  private step = 0;

  constructor(
    readonly sessionId: string,
    messages: number,
  ) {
    this.doc = { sessionId, projectHash: 'feed', startTime: iso(0), lastUpdated: iso(0), messages: [] };
    while (this.doc.messages.length < messages) this.next();
  }

  /** A prompt, a reply with its tokens, the reply's tool call while it runs, the call's result. */
  next(): string {
    const m = this.doc.messages;
    const k = m.length;
    const at = iso(this.step);
    const phase = this.step++ % 4;
    if (phase === 0) m.push({ id: `u${k}`, timestamp: at, type: 'user', content: `prompt number ${k}` });
    else if (phase === 1)
      m.push({
        id: `g${k}`,
        timestamp: at,
        type: 'gemini',
        content: `reply number ${k}`,
        thoughts: [{ subject: 'Thinking', description: `about ${k}`, timestamp: at }],
        tokens: { input: 100 + k, output: 10, cached: 50, thoughts: 5, tool: 0, total: 115 + k },
        model: 'gemini-2.5-pro',
      });
    else if (phase === 2)
      m.at(-1)!.toolCalls = [
        { id: `call-${k}`, name: 'read_file', args: { absolute_path: `/src/f${k}.ts` }, status: 'executing' },
      ];
    else {
      const call = (m.at(-1)!.toolCalls as Json[])[0]!;
      call.status = 'success';
      call.result = [
        { functionResponse: { id: call.id, name: 'read_file', response: { output: `file ${k}` } } },
      ];
    }
    this.doc.lastUpdated = at;
    // What a subscriber sees of this change: the newest message's events (a call's by its id).
    return phase === 2 || phase === 3 ? `call-${k}` : String(m.at(-1)!.id);
  }

  text(): string {
    return JSON.stringify(this.doc, null, 2);
  }
}

describe('a followed Gemini CLI document rewritten in place', () => {
  let server: RunningServer;
  let home: string;
  const chats = () => join(home, '.gemini', 'tmp', 'feed', 'chats');
  const sessions = [
    { conversation: new Conversation('a1b2c3d4-0000-4000-8000-000000000200', 200), name: 'short' },
    { conversation: new Conversation('a1b2c3d4-0000-4000-8000-000000002000', 2000), name: 'long' },
  ];
  const fileOf = (sid: string) =>
    join(chats(), `session-2026-02-03T10-00-${sid.slice(0, 8)}${sid.slice(-4)}.json`);

  beforeAll(async () => {
    home = tempDir();
    mkdirSync(chats(), { recursive: true });
    for (const { conversation } of sessions)
      writeFileSync(fileOf(conversation.sessionId), conversation.text());
    server = await serve(homeEnv(home), { rescanMs: 60_000 });
  });
  afterAll(() => server?.close());

  it('translates only what each rewrite changed, however long the document', async () => {
    const work: Record<string, number> = {};
    for (const { conversation, name } of sessions) {
      const sid = conversation.sessionId;
      const client = await Client.open(server);
      expect(await client.request('topic_subscribe', { topic: `session:gemini-cli:${sid}` })).toMatchObject({
        ok: true,
      });
      await client.until(
        (f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
        30_000,
      );
      const before = legacyWork.messages;
      for (let i = 0; i < REWRITES; i++) {
        const named = conversation.next();
        const seen = client.frames.length;
        writeFileSync(fileOf(sid), conversation.text());
        // Each rewrite is read before the next is written: its newest event reaches the subscriber.
        await client.until((f) => f.slice(seen).some((x) => JSON.stringify(x).includes(named)), 30_000);
      }
      work[name] = legacyWork.messages - before;
      await client.close();

      const key = `gemini-cli:${fileOf(sid)}`;
      const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
        agent: 'gemini-cli',
        path: fileOf(sid),
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      await expect
        .poll(() => {
          const entry = server.catalog.get(key);
          return entry && server.catalog.fullSummary(entry);
        })
        .toEqual(foldTranscript(loaded.value, { prompts: true }));
    }
    // A message or two per rewrite (the one changed or added, and at times the one before it),
    // the same for a document ten times as long.
    expect(work.short).toBeGreaterThanOrEqual(REWRITES);
    expect(work.short).toBeLessThanOrEqual(2 * REWRITES);
    expect(work.long).toBeLessThanOrEqual(2 * REWRITES);
  }, 120_000);
});
