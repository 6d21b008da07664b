// Continuing a session written in a terminal brings its whole past into the chat: the tool calls
// with their inputs and results (a Claude Code Write, a Codex apply_patch), not only the text.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { chatServer, closeAll, type Ev } from './support/chat.js';

afterEach(closeAll);

const CLAUDE = {
  agent: 'claude-code',
  id: '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2',
  from: 'claude/projects/-Users-yoavfarhi-dev-pomodoro-claude/36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl',
  to: '.claude/projects/-Users-yoavfarhi-dev-pomodoro-claude/36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl',
};
const CODEX = {
  agent: 'codex',
  id: '019a085e-04c1-7f81-a09e-9555f6a1fb40',
  from: 'codex/sessions/2025/10/21/rollout-2025-10-21T20-02-50-019a085e-04c1-7f81-a09e-9555f6a1fb40.jsonl',
  to: '.codex/sessions/2025/10/21/rollout-2025-10-21T20-02-50-019a085e-04c1-7f81-a09e-9555f6a1fb40.jsonl',
};

/** The history a tab gets for a session continued from the agent's file. */
async function continued(session: typeof CLAUDE) {
  const c = await chatServer();
  const home = dirname(c.project);
  mkdirSync(dirname(join(home, session.to)), { recursive: true });
  copyFileSync(corpusPath(session.from), join(home, session.to));
  const res = await c.api('POST', '/api/sessions/continue', {
    agent: session.agent,
    nativeSessionId: session.id,
    cwd: c.project,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const tab = await c.tab(res.body.session.id);
  const ready = await tab.ready();
  return ready.history as Ev[];
}

const eventsOf = (history: Ev[]) =>
  history
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => (m.events as string).split('\n').filter((l) => l !== ''))
    .map((l) => JSON.parse(l) as Ev);

describe.skipIf(!corpus)('a continued session keeps its tool calls', () => {
  it('shows a Claude Code Write with the file it wrote, and its result', async () => {
    const history = await continued(CLAUDE);
    const events = eventsOf(history);
    const writes = events.filter((e) => e.type === 'tool_call' && e.name === 'Write');
    expect(writes.length).toBe(3);
    for (const w of writes) {
      expect(typeof w.args.file_path).toBe('string');
      expect(typeof w.args.content).toBe('string');
      expect(events.some((e) => e.type === 'tool_result' && e.id === w.id)).toBe(true);
    }
    // The prompts stay prompts, and each tool call sits in the reply that follows its prompt.
    expect(history[0]).toMatchObject({ role: 'user' });
    expect(history[0]!.content).toMatch(/^Build a simple Pomodoro timer/);
    expect(history[1]).toMatchObject({ role: 'assistant' });
  });

  it('shows a Codex apply_patch with its patch, and its result', async () => {
    const events = eventsOf(await continued(CODEX));
    const patches = events.filter((e) => e.type === 'tool_call' && e.name === 'apply_patch');
    expect(patches.length).toBeGreaterThan(0);
    for (const p of patches) {
      expect(JSON.stringify(p.args)).toContain('*** Begin Patch');
      expect(events.some((e) => e.type === 'tool_result' && e.id === p.id)).toBe(true);
    }
    expect(events.some((e) => e.type === 'tool_call' && e.name !== 'apply_patch')).toBe(true);
  });
});
