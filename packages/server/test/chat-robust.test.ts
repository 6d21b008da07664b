// The chat under pressure, with the real Claude Code adapter against the fake model: two prompts
// in one burst, a queue pushed past its cap, and a chosen permission mode across a daemon restart.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { MAX_QUEUE } from '../src/chat/chat-session.js';
import { serve } from './helpers.js';
import { closeAll, type Ev, onCleanup, openTab } from './support/chat.js';
import { chatHarness } from './support/chat-harness.js';

let model: FakeModel;
let agentsHome: string;
let scratch: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  model = await startFakeModel();
  scratch = mkdtempSync(join(tmpdir(), 'cairn-chat-robust-'));
}, 600_000);

afterEach(closeAll);

afterAll(async () => {
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A cairn home whose agents are the installed test adapters, a project, and the agent's settings. */
async function agentSetup(name: string, agent: 'claude-code' | 'codex' = 'claude-code') {
  const root = join(scratch, name);
  const cairnHome = join(root, 'cairn');
  const project = join(root, 'project');
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const { env } = await agentTestEnv(agent, model.url, join(root, 'agent'));
  // Codex starts in its own default mode, as it does for a person; the chat chooses another.
  const { INITIAL_AGENT_MODE: _initial, ...rest } = env;
  return { cairnHome, project, env: { ...rest, CLAUDE_CONFIG_DIR: join(env.HOME!, '.claude') } };
}

const appended = (events: Ev[]) =>
  events.filter((e) => e.type === 'user_message_appended').map((e) => e.message.content as string);

describe('a chat with Claude Code', () => {
  it('answers two messages delivered back to back, in order, the second after the first turn ends', async () => {
    const setup = await agentSetup('burst');
    const h = await chatHarness({ ...setup, agents: ['claude-code'] });
    const id = h.newChat('claude-code');
    const tab = await h.tab(id);
    await tab.ready();
    model.script(
      { when: 'BURST-ONE', steps: [{ kind: 'text', text: 'Answer to one.' }], paceMs: 30 },
      { when: 'BURST-TWO', steps: [{ kind: 'text', text: 'Answer to two.' }] },
    );
    // Both in one tick, while the agent is still starting: nothing awaited between them.
    const session = h.chat.session(id)!;
    void session.receive({ type: 'user_message', content: 'BURST-ONE say one' });
    void session.receive({ type: 'user_message', content: 'BURST-TWO say two' });
    await tab.turnsEnded(2);

    expect(appended(tab.events)).toEqual(['BURST-ONE say one', 'BURST-TWO say two']);
    // The second waited in the queue and went out only once the first turn had ended.
    expect(tab.events.find((e) => e.type === 'queue_changed')!.queue.map((q: Ev) => q.content)).toEqual([
      'BURST-TWO say two',
    ]);
    const firstEnd = tab.events.findIndex((e) => e.type === 'agent_end');
    const second = tab.events.findIndex(
      (e) => e.type === 'user_message_appended' && e.message.content.startsWith('BURST-TWO'),
    );
    expect(second).toBeGreaterThan(firstEnd);
    const ends = tab.events.filter((e) => e.type === 'message_end');
    expect(ends.map((e) => e.stopReason)).toEqual(['stop', 'stop']);
    const replyOf = (messageId: string) =>
      tab.events
        .filter((e) => e.type === 'text_delta' && e.messageId === messageId)
        .map((e) => e.delta)
        .join('');
    expect(replyOf(ends[0]!.messageId)).toContain('Answer to one.');
    expect(replyOf(ends[1]!.messageId)).toContain('Answer to two.');
    // The model was asked the second question after it had answered the first.
    const asked = model.mainRequests().map((r) => JSON.stringify(r.body));
    const one = asked.findIndex((b) => b.includes('BURST-ONE'));
    const two = asked.findIndex((b) => b.includes('BURST-TWO'));
    expect(one).toBeGreaterThanOrEqual(0);
    expect(two).toBeGreaterThan(one);
    expect(asked[two]).toContain('Answer to one.');
  }, 180_000);

  it(`caps the queue at ${MAX_QUEUE} with a message, and a burst of changes is one queue_changed`, async () => {
    const setup = await agentSetup('queue');
    const h = await chatHarness({ ...setup, agents: ['claude-code'] });
    const id = h.newChat('claude-code');
    const tab = await h.tab(id);
    await tab.ready();
    // The first turn waits on the model until it is stopped.
    model.script({ when: 'QUEUE-HOLD', steps: [], hang: true });
    const session = h.chat.session(id)!;
    void session.receive({ type: 'user_message', content: 'QUEUE-HOLD wait' });
    for (let i = 1; i <= 60; i++) void session.receive({ type: 'user_message', content: `queued ${i}` });
    const changes = () => tab.events.filter((e) => e.type === 'queue_changed');
    await tab.until(() => (changes().at(-1)?.queue.length ?? 0) >= 50, 'the queue');
    // Whatever else the burst brings has arrived by now.
    await new Promise((r) => setTimeout(r, 300));
    const refusals = tab.events.filter((e) => e.type === 'error');
    expect(refusals).toHaveLength(10);
    for (const r of refusals) expect(r.message).toMatch(/^The queue is full \(50 messages at most\)/);
    // Fifty enqueues in a burst: one queue_changed with the whole queue, as the contract has it.
    expect(changes()).toHaveLength(1);
    expect(changes()[0]!.queue.map((q: Ev) => q.content)).toEqual(
      Array.from({ length: 50 }, (_, i) => `queued ${i + 1}`),
    );
    expect(changes()[0]!.queue.map((q: Ev) => q.position)).toEqual(Array.from({ length: 50 }, (_, i) => i));

    tab.send({ type: 'queue_clear' });
    await tab.until(() => changes().length > 1, 'the cleared queue');
    expect(changes().at(-1)!.queue).toEqual([]);
    await tab.until(() => tab.count('message_start') > 0, 'the running turn');
    tab.send({ type: 'stop' });
    await tab.turnsEnded(1);
    expect(appended(tab.events)).toEqual(['QUEUE-HOLD wait']);
  }, 180_000);

  it('keeps a chosen permission mode across a daemon restart: a write asks instead of happening', async () => {
    const setup = await agentSetup('restart', 'codex');
    const start = async () => {
      const server = await serve(setup.env, { cairnHome: setup.cairnHome });
      await server.drive.wire.waitForWorkstation('local');
      return server;
    };
    const first = await start();
    onCleanup(() => first.close());
    const api = async (port: number, token: string, path: string, body: unknown): Promise<Ev> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Ev;
    };
    const p = await api(first.port, first.token, '/api/projects', { path: setup.project });
    const s = await api(first.port, first.token, '/api/sessions', {
      projectId: p.project.id,
      agent: 'codex',
    });
    const id = s.session.id as string;
    const tabOf = (server: { port: number; token: string }) =>
      openTab(`ws://127.0.0.1:${server.port}/chat?session=${id}&token=${server.token}`);
    /** The agent's mode option, as the latest state the tab has says. */
    const modeOf = (events: Ev[]) => {
      const states = events.filter((e) => e.type === 'session_ready' || e.type === 'config_options');
      const options = (states.at(-1)?.configOptions ?? []) as Ev[];
      return options.find((o) => o.category === 'mode' || o.id === 'mode');
    };

    const before = await tabOf(first);
    await before.until(() => modeOf(before.events) !== undefined, 'the mode option');
    const mode = modeOf(before.events)!;
    // Codex starts in Auto review, which edits without asking; the chat is set to Read-only.
    expect(mode.currentValue).toBe('agent');
    before.send({ type: 'set_config_option', configId: mode.id, value: 'read-only' });
    await before.until(() => modeOf(before.events)?.currentValue === 'read-only', 'the mode set');
    // A turn, so the agent has a session of its own to load after the restart.
    model.script({ when: 'RESTART-HELLO', steps: [{ kind: 'text', text: 'Hello.' }] });
    before.send({ type: 'user_message', content: 'RESTART-HELLO say hello' });
    await before.turnsEnded(1);
    await first.close();

    const second = await start();
    onCleanup(() => second.close());
    const after = await tabOf(second);
    // Opened again, the session is set back to the chosen mode before anything is sent.
    await after.until(() => after.count('session_ready') > 1, 'the agent up', 120_000);
    expect(modeOf(after.events)?.currentValue).toBe('read-only');
    const file = join(setup.project, 'restart-write.txt');
    const prompt = 'RESTART-WRITE write the file';
    model.script(
      { when: prompt, steps: [{ kind: 'write', path: file, content: 'written\n' }] },
      { when: prompt, steps: [{ kind: 'text', text: 'Left it alone.' }] },
    );
    after.send({ type: 'user_message', content: prompt });
    await after.until(() => after.count('permission_request') > 0, 'the permission card', 120_000);
    expect(existsSync(file)).toBe(false);
    const asked = after.events.find((e) => e.type === 'permission_request')!;
    const reject = asked.options.find((o: Ev) => o.kind === 'reject_once');
    after.send({ type: 'permission_answer', requestId: asked.requestId, optionId: reject.optionId });
    await after.turnsEnded(1);
    expect(existsSync(file)).toBe(false);
    expect(after.events.filter((e) => e.type === 'error')).toEqual([]);
  }, 300_000);
});
