// A session too large to hold is indexed a part at a time: a daemon whose heap could not hold it
// read whole still lists it with the numbers of all of it, and finds words to its end.
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigClaudeSession, claudeSource } from '../../transcript/test/big-sessions.js';
import { corpus } from '../../transcript/test/corpus.js';
import { tempHome } from '../../transcript/test/homes.js';
import type { RunningServer } from '../src/index.js';
import { buildDaemon, type Daemon, removeDaemon, startDaemon } from './daemon.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const MB = 1024 * 1024;

/** The session's row in a daemon's list, and the item ids its search for `word` finds. */
async function listedAndFound(server: Pick<RunningServer, 'port' | 'token'>, word: string) {
  const client = await Client.open(server as RunningServer);
  try {
    const list = await client.request('session_list', { limit: 5 });
    const [row] = list.sessions as { sid: string }[];
    const read = await client.request('session_summary_read', { sid: row!.sid });
    const summary = read.summary as { turns: number; requests: number; subagents: number };
    const found = await client.request('session_search', { query: word, limit: 5000 });
    const last = await client.request('session_search', { query: 'quokkafish' });
    const uuids = (reply: Record<string, unknown>) =>
      (reply.hits as { item_uuid: string }[]).map((h) => h.item_uuid);
    return { summary, found: uuids(found), last: uuids(last) };
  } finally {
    client.ws.close();
  }
}

describe.skipIf(!corpus)('a session too large to hold, indexed', () => {
  let file: string | undefined;
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    file = await buildDaemon();
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    removeDaemon(file);
  });

  it('of 160 MB with its subagents, under a 128 MB heap, is listed whole and searched to its end', async () => {
    // One copy and two, read whole by a daemon of the usual heap: what each copy adds.
    const counts = [];
    for (const copies of [1, 2]) {
      const home = tempHome();
      bigClaudeSession(home, copies, { subagents: true });
      const server = await serve(homeEnv(home), { cairnHome: tempDir('cairn-state-') });
      counts.push(await listedAndFound(server, 'pomodoro'));
      await server.close();
    }
    const [one, two] = counts as [
      Awaited<ReturnType<typeof listedAndFound>>,
      Awaited<ReturnType<typeof listedAndFound>>,
    ];
    const perCopy = two.summary.turns - one.summary.turns;
    expect(perCopy).toBeGreaterThan(0);

    const home = tempHome();
    const copies = Math.ceil((160 * MB) / Buffer.byteLength(claudeSource()));
    const { path } = bigClaudeSession(home, copies, { subagents: true });
    // A last prompt of its own, past every copy: a word only the file's end holds.
    const prompt = JSON.parse(
      claudeSource()
        .split('\n')
        .find((l) => l.includes('"content":"Work on bead'))!,
    );
    Object.assign(prompt, { uuid: 'last-prompt', timestamp: '2030-01-01T00:00:00.000Z' });
    prompt.message.content = 'one more thing about the quokkafish';
    appendFileSync(path, `${JSON.stringify(prompt)}\n`);
    // The whole transcript of 160 MB takes several times its bytes: a read of it whole fails here.
    daemon = await startDaemon(file!, {
      ...homeEnv(home),
      CAIRN_HOME: tempDir('cairn-state-'),
      NODE_OPTIONS: '--max-old-space-size=128',
    });
    const big = await listedAndFound(daemon, 'pomodoro');
    expect(daemon.log()).not.toMatch(/read whole after all|index: claude-code/);
    expect(big.summary.turns).toBe(one.summary.turns + (copies - 1) * perCopy + 1);
    expect(big.summary.subagents).toBe(one.summary.subagents);
    expect(big.summary!.requests).toBe(
      one.summary.requests + (copies - 1) * (two.summary.requests - one.summary.requests),
    );
    expect(big.found).toHaveLength(one.found.length * copies);
    expect(big.last).toEqual(['last-prompt']);
  }, 180_000);
});
