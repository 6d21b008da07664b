// The daemon serves while it lists the sessions on disk: a first start over a long history answers
// at once, the index reads as building until every session is listed, a session asked for by id
// before it is listed is found once it is, not refused as missing, and a list is whole.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listSessions, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const CLAUDE_SESSIONS = 1000;

describe.skipIf(!corpus)('a daemon still listing the sessions', () => {
  it('answers, says its index is building, and finds a session listed last', async () => {
    const home = tempDir();
    symlinkSync(corpusPath('gemini'), join(home, '.gemini'));
    const env = homeEnv(home);
    // The Gemini CLI session, listed after every Claude Code one.
    let gemini: { id: string } | undefined;
    for await (const entry of listSessions(nodePlatform({ env, homeDir: home }), { agent: 'gemini-cli' }))
      if (!('ref' in entry) && !gemini) gemini = entry;
    expect(gemini).toBeDefined();
    const short = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'short.jsonl'));
    const dir = join(home, '.claude', 'projects', '-work-many');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < CLAUDE_SESSIONS; i++)
      writeFileSync(join(dir, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`), short);

    const server = await serve(env, { waitForIndex: false });
    try {
      const listedAtStart = server.catalog.all().length;
      const client = await Client.open(server);
      const ping = await client.request('ping');
      // Both asked before the listing is over.
      const [summary, list] = await Promise.all([
        client.request('session_summary_read', { sid: gemini!.id, agent: 'gemini-cli' }),
        client.request('session_list', { limit: 1 }),
      ]);
      await client.close();
      // What makes this test mean something: the server answered before the listing was over.
      expect(listedAtStart).toBeLessThan(CLAUDE_SESSIONS + 1);
      expect((ping.index as { state: string }).state).toBe('building');
      expect(summary).toMatchObject({ ok: true, sid: gemini!.id, agent: 'gemini-cli' });
      // A list asked for meanwhile waits for the listing: it is whole.
      expect(list).toMatchObject({ ok: true, total: CLAUDE_SESSIONS + 1 });

      await server.catalog.settled();
      const after = await Client.open(server);
      const ready = await after.request('ping');
      await after.close();
      expect(ready.index).toEqual({ state: 'ready', sessions: CLAUDE_SESSIONS + 1 });
    } finally {
      await server.close();
    }
  }, 60_000);
});
