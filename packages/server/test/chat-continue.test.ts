// Continuing a session written in a terminal: a real Claude Code corpus session copied into a
// temporary home, opened through the real adapter's session/load against the fake model. Its
// past shows once (read from the file, not from the agent's replay), then a new turn streams.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { corpusPath } from '../../transcript/test/corpus.js';
import { serve } from './helpers.js';

const SESSION = '55604662-cf2a-4331-851a-ec234028f8ca';
const FIRST_PROMPT = 'mix phx.server doesnt seem to start';

let model: FakeModel;
let agentsHome: string;
let scratch: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  model = await startFakeModel();
  scratch = mkdtempSync(join(tmpdir(), 'cairn-continue-'));
}, 600_000);

afterAll(async () => {
  await model?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('continues a real Claude Code session: its history once, then a new turn from the agent', async () => {
  const project = join(scratch, 'spotter');
  mkdirSync(project, { recursive: true });
  const { env } = await agentTestEnv('claude-code', model.url, scratch);
  // Claude Code keeps a session under its project folder's path with / and . spelled as -.
  const sessions = join(env.HOME!, '.claude', 'projects', project.replace(/[/.]/g, '-'));
  mkdirSync(sessions, { recursive: true });
  copyFileSync(corpusPath('claude/projects/-work-spotter/short.jsonl'), join(sessions, `${SESSION}.jsonl`));
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));

  const server = await serve({ ...env, CLAUDE_CONFIG_DIR: join(env.HOME!, '.claude') }, { cairnHome });
  try {
    await server.drive.wire.waitForWorkstation('local');
    const res = await fetch(`http://127.0.0.1:${server.port}/api/sessions/continue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'claude-code', nativeSessionId: SESSION, cwd: project }),
    });
    expect(res.status).toBe(200);
    const { session } = (await res.json()) as { session: { id: string; messageCount: number } };
    expect(session.messageCount).toBeGreaterThan(1);

    const ws = new WebSocket(
      `ws://127.0.0.1:${server.port}/chat?session=${session.id}&token=${server.token}`,
    );
    const events: { type: string; [k: string]: unknown }[] = [];
    ws.on('message', (data) => events.push(JSON.parse(data.toString())));
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 600 && !test(); i++) await new Promise((r) => setTimeout(r, 100));
      if (!test()) throw new Error(`timed out waiting for ${what}: ${events.map((e) => e.type).join(',')}`);
    };
    await until(() => events.some((e) => e.type === 'session_ready'), 'session_ready');
    const ready = events.find((e) => e.type === 'session_ready') as unknown as {
      history: { role: string; content: string }[];
    };
    const prompts = ready.history.filter((m) => m.role === 'user').map((m) => m.content);
    expect(prompts).toEqual([FIRST_PROMPT]);
    expect(ready.history.some((m) => m.role === 'assistant')).toBe(true);
    // The agent's own replay of the history (session/load) shows nowhere.
    expect(events.filter((e) => e.type === 'text_delta')).toEqual([]);

    model.script({
      when: 'continue-marker',
      steps: [{ kind: 'text', text: 'Picked up where we left off.', deltas: 3 }],
    });
    ws.send(JSON.stringify({ type: 'user_message', content: 'continue-marker: try again' }));
    await until(() => events.some((e) => e.type === 'agent_end'), 'the turn end');
    const reply = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.delta)
      .join('');
    expect(reply).toContain('Picked up where we left off.');
    expect(events.find((e) => e.type === 'message_end')).toMatchObject({ stopReason: 'stop' });
    // The agent was given the old conversation: the model saw the corpus prompt in its request.
    const request = model.mainRequests().find((r) => JSON.stringify(r.body).includes('continue-marker'));
    expect(JSON.stringify(request?.body)).toContain(FIRST_PROMPT);
    ws.close();
  } finally {
    await server.close();
  }
}, 240_000);
