// Memory keeps, of each session's summary, the numbers the list shows; the prompts and the context's
// shape are read from the index when one session's summary is asked for, before a restart and after.
import { nodePlatform, summarizeSession } from '@cairn/transcript';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, homeEnv, serve, tempDir } from './helpers.js';

describe.skipIf(!corpus)('a summary kept in the index', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('answers the prompts and the context shape from the index, before and after a restart', async () => {
    const { home, file } = claudeSessionHome(1_000);
    const env = homeEnv(home);
    const cairnHome = tempDir('cairn-state-');
    const expected = await summarizeSession(
      nodePlatform({ env, homeDir: home }),
      { agent: 'claude-code', path: file },
      { prompts: true },
    );
    if (!expected.ok) throw new Error(expected.error.message);
    expect(expected.value.prompts?.length).toBeGreaterThan(0);
    expect(expected.value.contextShape?.length).toBeGreaterThan(0);

    for (const start of ['first', 'again']) {
      server = await serve(env, { cairnHome });
      const entry = server.catalog.all()[0]!;
      expect(entry.indexed, start).toBe(true);
      // What stays in memory: the numbers alone.
      expect(entry.summary?.inputTokens, start).toBe(expected.value.inputTokens);
      expect(entry.summary && 'prompts' in entry.summary, start).toBe(false);
      expect(entry.summary && 'contextShape' in entry.summary, start).toBe(false);
      const c = await Client.open(server);
      const reply = await c.request('session_summary_read', { sid: 'subagent', prompts: true });
      expect(reply.summary, start).toEqual({ ...expected.value, prompts: expected.value.prompts });
      const list = await c.request('session_list', { limit: 10 });
      expect((list.sessions as { input_tokens?: number }[])[0]?.input_tokens, start).toBe(
        expected.value.inputTokens,
      );
      await c.close();
      await server.close();
      server = undefined;
    }
  });
});
