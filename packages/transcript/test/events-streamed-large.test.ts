// A very large Claude Code session read in parts, as `cairn show` and a dump read it: the events
// handed out are let go of, so memory does not grow with the file as the whole transcript would.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../src/index.js';
import { bigClaudeSession, claudeSource } from './big-sessions.js';
import { corpus } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

/** Events and lanes of a whole read of `copies` copies, with the subagents. */
async function wholeRead(copies: number) {
  const home = tempHome();
  try {
    const { path } = bigClaudeSession(home, copies, { subagents: true });
    const loaded = await loadTranscript(tempPlatform(home), { path, agent: 'claude-code' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    return { events: loaded.value.events.length, agents: loaded.value.agents };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe.skipIf(!corpus)('a very large Claude Code session read in parts', () => {
  it('of 200 MB, with its subagents, hands out every event under a 64 MB heap', async () => {
    const one = await wholeRead(1);
    const two = await wholeRead(2);
    const home = tempHome();
    try {
      const copies = Math.ceil((200 * 1024 * 1024) / Buffer.byteLength(claudeSource()));
      const { path } = bigClaudeSession(home, copies, { subagents: true });
      // From the build, in a process of its own, its heap capped: holding the events read fails.
      const dist = new URL('../dist/index.js', import.meta.url).href;
      const script = `
        const { nodePlatform, streamEvents } = await import(${JSON.stringify(dist)});
        let events = 0;
        let agents;
        const r = await streamEvents(
          nodePlatform({ env: { HOME: ${JSON.stringify(home)} } }),
          { path: ${JSON.stringify(path)}, agent: 'claude-code' },
          (t) => { events++; agents = t.agents; },
        );
        if (!r.ok) throw new Error(r.error.message);
        process.stdout.write(JSON.stringify({ events, whole: r.value.whole, agents }));`;
      const out = JSON.parse(
        execFileSync(process.execPath, ['--max-old-space-size=64', '--input-type=module', '-e', script], {
          encoding: 'utf8',
        }),
      ) as { events: number; whole: boolean; agents: unknown };
      expect(out.whole).toBe(false);
      // Every copy of the main file adds its events; the subagents' come once.
      expect(out.events).toBe(one.events + (copies - 1) * (two.events - one.events));
      // The lanes are linked to the calls that spawned them, long after those calls were let go of.
      expect(two.agents.length).toBeGreaterThan(1);
      expect(two.agents.some((a) => a.spawnEventId !== undefined && a.title !== undefined)).toBe(true);
      expect(out.agents).toEqual(two.agents);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);
});
