// The four real adapters, driven by a bare SDK client against the scripted model on 127.0.0.1:
// a real turn with text, thinking, a file write that needs permission and usage; the same with
// the permission refused; a cancelled turn; and the sign-in error when there are no credentials.
// Then the scripted agent's behaviours, which the runner's own tests build on.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridgeKey } from '../src/bridges.js';
import {
  agentNoCredentialsEnv,
  agentTestEnv,
  ensureTestAgents,
  scriptedAgentCommand,
  testAgentCommand,
} from './support/agents.js';
import {
  type BareClient,
  groupMembers,
  type PermissionPolicy,
  runBareTurn,
  startBareClient,
} from './support/bare-client.js';
import { carriesToolResult, type FakeModel, startFakeModel } from './support/fake-model.js';

interface AgentCase {
  readonly key: BuiltInBridgeKey;
  /** Puts a new session in a mode where the agent asks before writing a file. */
  readonly asking?: (client: BareClient, sessionId: string) => Promise<void>;
  /** How the turn ends when the write is refused. */
  readonly deniedStop: acp.StopReason;
  /** Where the agent reports token usage. */
  readonly usage: 'notifications' | 'answer' | 'answer-meta';
  /** The request that fails -32000 without credentials. */
  readonly signInAt: 'session/new' | 'session/prompt';
  /** How the turn ends after `session/cancel`. */
  readonly cancelStops: readonly acp.StopReason[];
}

const CASES: readonly AgentCase[] = [
  {
    key: 'claude-code',
    asking: async (client, sessionId) => {
      await client.request('session/set_mode', { sessionId, modeId: 'default' });
    },
    deniedStop: 'end_turn',
    usage: 'notifications',
    signInAt: 'session/prompt',
    cancelStops: ['cancelled'],
  },
  {
    key: 'codex',
    deniedStop: 'cancelled',
    usage: 'notifications',
    signInAt: 'session/new',
    cancelStops: ['cancelled'],
  },
  {
    key: 'gemini-cli',
    deniedStop: 'end_turn',
    usage: 'answer-meta',
    signInAt: 'session/new',
    cancelStops: ['cancelled', 'end_turn'],
  },
  {
    key: 'opencode',
    deniedStop: 'end_turn',
    usage: 'answer',
    signInAt: 'session/prompt',
    cancelStops: ['cancelled', 'end_turn'],
  },
];

const HELLO = 'Hello there, friend. This reply arrives in pieces.';
const AFTER = 'Wrote the file.';

let agentsHome: string;
let scratchRoot: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  scratchRoot = await mkdtemp(join(tmpdir(), 'cairn-adapters-'));
}, 600_000);

afterAll(async () => {
  await rm(scratchRoot, { recursive: true, force: true });
});

const groupGone = (pid: number) => groupMembers(pid).length === 0;

async function rejection(
  promise: Promise<unknown>,
): Promise<{ code?: number; message?: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (cause) {
    return cause as { code?: number; message?: string };
  }
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

describe.each(CASES)('$key', (c) => {
  let model: FakeModel;
  let client: BareClient;
  let cwd: string;
  let policy: PermissionPolicy = 'allow';
  /** The signed-out agent's answer, started in `beforeAll` so that its start overlaps the turns. */
  let signedOut: Promise<{ refusal?: unknown; pid?: number; failure?: unknown }>;

  beforeAll(async () => {
    signedOut = refusalWithoutCredentials().then(
      (outcome) => outcome,
      (failure: unknown) => ({ failure }),
    );
    model = await startFakeModel();
    const scratch = join(scratchRoot, c.key);
    cwd = join(scratch, 'work');
    await mkdir(cwd, { recursive: true });
    const setup = await agentTestEnv(c.key, model.url, scratch);
    const { command, args } = testAgentCommand(c.key, agentsHome);
    client = startBareClient({
      command,
      args,
      env: setup.env,
      cwd,
      permission: (request) => {
        const wanted = policy === 'allow' ? 'allow_once' : 'reject_once';
        return request.options.find((o) => o.kind === wanted)?.optionId ?? null;
      },
    });
    const init = await client.initialize(setup.initialize ?? {});
    expect(init.protocolVersion).toBe(1);
    if (setup.authenticate !== undefined) await client.authenticate(setup.authenticate);
  }, 60_000);

  afterAll(async () => {
    const pid = client?.pid;
    await client?.close();
    await model?.close();
    await signedOut;
    if (pid !== undefined) expect(groupGone(pid)).toBe(true);
  });

  /** A new agent with no credentials at all, asked for a session and a turn; closed after. */
  async function refusalWithoutCredentials(): Promise<{ refusal: unknown; pid: number }> {
    const scratch = join(scratchRoot, `${c.key}-signed-out`);
    const signedOutCwd = join(scratch, 'work');
    await mkdir(signedOutCwd, { recursive: true });
    const setup = await agentNoCredentialsEnv(c.key, scratch);
    const { command, args } = testAgentCommand(c.key, agentsHome);
    const bare = startBareClient({ command, args, env: setup.env, cwd: signedOutCwd, permission: 'deny' });
    try {
      await bare.initialize();
      if (c.signInAt === 'session/new') return { refusal: await rejection(bare.newSession()), pid: bare.pid };
      const session = await bare.newSession();
      return { refusal: await rejection(bare.prompt(session.sessionId, 'Hello?')), pid: bare.pid };
    } finally {
      await bare.close();
    }
  }

  async function openSession(): Promise<string> {
    const session = await client.newSession({ cwd });
    await c.asking?.(client, session.sessionId);
    return session.sessionId;
  }

  it('completes a turn: text in order, thinking, a permitted write, usage, end_turn', async () => {
    policy = 'allow';
    model.reset();
    const target = join(cwd, 'allowed.txt');
    const prompt = 'Say hello, then write allowed.txt.';
    model.script(
      {
        when: prompt,
        steps: [
          { kind: 'thinking', text: 'The user wants a greeting and a file.' },
          { kind: 'text', text: HELLO, deltas: 5 },
          { kind: 'write', path: target, content: 'written by the agent\n' },
          { kind: 'usage', input: 100, output: 20 },
        ],
      },
      {
        steps: [
          { kind: 'text', text: AFTER },
          { kind: 'usage', input: 150, output: 5 },
        ],
      },
    );
    const sessionId = await openSession();
    const from = client.updates.length;
    const answer = await client.prompt(sessionId, prompt);
    expect(answer.stopReason).toBe('end_turn');

    const updates = client.updatesOf(sessionId, from).map((u) => u.update);
    const chunks = updates.flatMap((u) =>
      u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
    );
    expect(chunks.join('')).toBe(HELLO + AFTER);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const thought = updates
      .flatMap((u) =>
        u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' ? [u.content.text] : [],
      )
      .join('');
    expect(thought).toContain('The user wants a greeting and a file.');
    // Text, then the tool call, then the text after it.
    const firstTool = updates.findIndex(
      (u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update',
    );
    const lastHello = updates.findLastIndex(
      (u) => u.sessionUpdate === 'agent_message_chunk' && HELLO.includes(textOf(u)),
    );
    expect(firstTool).toBeGreaterThan(lastHello);

    expect(client.permissions).toHaveLength(1);
    const asked = client.permissions[0]!;
    expect(asked.request.sessionId).toBe(sessionId);
    expect(asked.request.options.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['allow_once', 'allow_always', 'reject_once']),
    );
    expect(await readFile(target, 'utf8')).toBe('written by the agent\n');

    // The tool's result went back to the model, which answered the follow-up.
    const main = model.mainRequests().filter((r) => r.turn !== null);
    expect(main.length).toBeGreaterThanOrEqual(2);
    expect(carriesToolResult(main[1]!)).toBe(true);
    expect(model.pendingTurns()).toBe(0);

    const usage = (
      answer as { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number } }
    ).usage;
    if (c.usage === 'notifications') {
      expect(updates.filter((u) => u.sessionUpdate === 'usage_update').length).toBeGreaterThan(0);
      expect(usage?.inputTokens).toBe(250);
      expect(usage?.outputTokens).toBe(25);
    } else if (c.usage === 'answer') {
      expect(usage?.totalTokens).toBeGreaterThan(0);
    } else {
      expect(JSON.stringify(answer._meta)).toContain('"input_tokens":250');
    }
  });

  it('does not write when the permission is refused', async () => {
    policy = 'deny';
    model.reset();
    client.permissions.length = 0;
    const target = join(cwd, 'refused.txt');
    const prompt = 'Write refused.txt.';
    model.script(
      {
        when: prompt,
        steps: [
          { kind: 'text', text: 'Writing it now.' },
          { kind: 'write', path: target, content: 'no\n' },
        ],
      },
      { when: prompt, steps: [{ kind: 'text', text: 'Understood, I will not write it.' }] },
    );
    const sessionId = await openSession();
    const answer = await client.prompt(sessionId, prompt);
    expect(answer.stopReason).toBe(c.deniedStop);
    expect(client.permissions).toHaveLength(1);
    expect(client.permissions[0]!.answer).toMatchObject({ outcome: { outcome: 'selected' } });
    expect(await exists(target)).toBe(false);
  });

  it('ends a turn on session/cancel', async () => {
    model.reset();
    const prompt = 'Take your time.';
    model.script({
      when: prompt,
      steps: [{ kind: 'text', text: 'Starting a long answer', deltas: 1 }],
      hang: true,
    });
    const sessionId = await openSession();
    const from = client.updates.length;
    const turn = client.prompt(sessionId, prompt);
    await waitFor(() => client.textOf(sessionId, from).includes('Starting a long answer'), 30_000);
    const cancelledAt = Date.now();
    await client.cancel(sessionId);
    const answer = await turn;
    if (!c.cancelStops.includes(answer.stopReason)) {
      throw new Error(
        `stopped ${answer.stopReason}; model saw ${JSON.stringify(model.requests.map((r) => [r.path, r.turn, r.auxiliary]))}; updates ${JSON.stringify(client.updatesOf(sessionId, from).map((u) => u.update)).slice(0, 3000)}`,
      );
    }
    expect(Date.now() - cancelledAt).toBeLessThan(15_000);
  });

  it('fails -32000 without credentials', async () => {
    const { refusal, pid, failure } = await signedOut;
    if (failure !== undefined) throw failure;
    expect(refusal).toMatchObject({ code: -32000 });
    expect(groupGone(pid!)).toBe(true);
  });
});

function textOf(update: acp.SessionUpdate): string {
  return update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text'
    ? update.content.text
    : '';
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the scripted agent', () => {
  let cwd: string;
  const clients: BareClient[] = [];

  beforeAll(async () => {
    cwd = join(scratchRoot, 'scripted', 'work');
    await mkdir(cwd, { recursive: true });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const c of clients) expect(groupGone(c.pid)).toBe(true);
  });

  async function start(settings: Record<string, string> = {}, permission: PermissionPolicy = 'allow') {
    const { command, args } = scriptedAgentCommand();
    const client = startBareClient({
      command,
      args,
      env: { PATH: process.env.PATH ?? '', HOME: join(scratchRoot, 'scripted'), ...settings },
      cwd,
      permission,
    });
    clients.push(client);
    const init = await client.initialize();
    const session = await client.newSession({ cwd });
    return { client, init, sessionId: session.sessionId };
  }

  it('runs a normal turn: thinking, text in order, a permission, the write, usage, end_turn', async () => {
    const { client, init, sessionId } = await start();
    expect(init.agentInfo?.name).toBe('scripted-agent');
    expect(init._meta).toEqual({ steering: { supported: true } });
    const answer = await client.prompt(sessionId, 'allowed content');
    expect(answer).toMatchObject({ stopReason: 'end_turn', usage: { totalTokens: 120 } });
    expect(client.textOf(sessionId)).toBe('chunk 0 chunk 1 chunk 2 done.');
    const kinds = client.updatesOf(sessionId).map((u) => u.update.sessionUpdate);
    expect(kinds).toEqual([
      'agent_thought_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
      'usage_update',
    ]);
    expect(client.permissions).toHaveLength(1);
    expect(await readFile(join(cwd, 'scripted-agent.txt'), 'utf8')).toBe('allowed content');
  });

  it('does not write when the permission is refused, and ends `cancelled` when it is cancelled', async () => {
    const { client, sessionId } = await start({}, 'deny');
    await rm(join(cwd, 'scripted-agent.txt'), { force: true });
    expect(await client.prompt(sessionId, 'refused')).toMatchObject({ stopReason: 'end_turn' });
    expect(client.textOf(sessionId)).toMatch(/not written\.$/);
    expect(await exists(join(cwd, 'scripted-agent.txt'))).toBe(false);

    const other = await start({}, 'cancel');
    expect(await other.client.prompt(other.sessionId, 'cancelled')).toMatchObject({
      stopReason: 'cancelled',
    });
  });

  it('crashes in the middle of a turn', async () => {
    const { client, sessionId } = await start({ SCRIPTED_AGENT_BEHAVIOUR: 'crash' });
    const failure = await rejection(client.prompt(sessionId, 'go'));
    expect(failure).toBeDefined();
    expect((await client.exited).code).toBe(70);
    expect(client.textOf(sessionId)).toContain('partial 0');
  });

  it('sends a burst of 100,000 updates, all delivered once and in order', async () => {
    const { client, sessionId } = await start();
    const started = Date.now();
    const answer = await client.prompt(sessionId, '[[burst:100000]]');
    const elapsed = Date.now() - started;
    expect(answer.stopReason).toBe('end_turn');
    const texts = client
      .updatesOf(sessionId)
      .flatMap((u) => (textOf(u.update) === '' ? [] : [textOf(u.update)]));
    expect(texts).toHaveLength(100_000);
    for (let i = 0; i < texts.length; i++)
      if (texts[i] !== `[${i}]`) throw new Error(`update ${i} reads ${texts[i]}`);
    expect(elapsed).toBeLessThan(30_000);
  });

  it('hangs until cancelled, hears steering meanwhile, and answers steering when idle', async () => {
    const { client, sessionId } = await start({ SCRIPTED_AGENT_BEHAVIOUR: 'hang' });
    const turn = client.prompt(sessionId, 'wait');
    await waitFor(() => client.textOf(sessionId).includes('waiting'), 5000);
    const steer = (text: string, meta?: unknown) =>
      client.request<{ outcome: string }>('_session/steering', {
        sessionId,
        prompt: [{ type: 'text', text }],
        ...(meta === undefined ? {} : { _meta: meta }),
      });
    expect(await steer('also this')).toEqual({ outcome: 'injected' });
    await waitFor(() => client.textOf(sessionId).includes('heard: also this'), 5000);
    await client.cancel(sessionId);
    expect(await turn).toEqual({ stopReason: 'cancelled' });
    expect(await steer('later', { steering: { idleBehavior: 'promptRequired' } })).toEqual({
      outcome: 'promptRequired',
      reason: 'noRunningTurn',
    });
  });

  it('completes a turn with garbage lines on stdout between the valid ones', async () => {
    const { client, sessionId } = await start({ SCRIPTED_AGENT_BEHAVIOUR: 'garbage' });
    const answer = await client.prompt(sessionId, 'despite the noise');
    expect(answer.stopReason).toBe('end_turn');
    expect(client.textOf(sessionId)).toBe('chunk 0 chunk 1 chunk 2 done.');
  });

  it('replays a session on session/load, in a later process', async () => {
    const state = join(scratchRoot, 'scripted-state');
    const first = await start({ SCRIPTED_AGENT_STATE: state });
    await first.client.prompt(first.sessionId, 'remember this');
    await first.client.close();

    const { command, args } = scriptedAgentCommand();
    const second = startBareClient({
      command,
      args,
      env: { PATH: process.env.PATH ?? '', SCRIPTED_AGENT_STATE: state },
      cwd,
    });
    clients.push(second);
    const init = await second.initialize();
    expect(init.agentCapabilities?.loadSession).toBe(true);
    await second.request('session/load', { sessionId: first.sessionId, cwd, mcpServers: [] });
    const replayed = second.updatesOf(first.sessionId).map((u) => [u.update.sessionUpdate, textOf(u.update)]);
    expect(replayed).toEqual([
      ['user_message_chunk', ''],
      ['agent_message_chunk', 'chunk 0 chunk 1 chunk 2 done.'],
    ]);
    const listed = await second.request<{ sessions: { sessionId: string }[] }>('session/list', {});
    expect(listed.sessions.map((s) => s.sessionId)).toContain(first.sessionId);
  });

  it('times one whole bare turn, spawn to answer', async () => {
    const { command, args } = scriptedAgentCommand();
    const t = await runBareTurn({
      command,
      args,
      env: { PATH: process.env.PATH ?? '' },
      cwd,
      prompt: 'timed',
    });
    expect(t.answer.stopReason).toBe('end_turn');
    expect(t.text).toBe('chunk 0 chunk 1 chunk 2 done.');
    expect(t.spawnedAt).toBeLessThanOrEqual(t.initializedAt);
    expect(t.initializedAt).toBeLessThanOrEqual(t.sessionAt);
    expect(t.sessionAt).toBeLessThanOrEqual(t.sentAt);
    expect(t.firstTextAt).not.toBeNull();
    expect(t.firstTextAt!).toBeGreaterThanOrEqual(t.sentAt);
    expect(t.answeredAt).toBeGreaterThanOrEqual(t.firstTextAt!);
  });

  it('asks for sign-in with -32000 until authenticated', async () => {
    const { client, init, sessionId } = await start({ SCRIPTED_AGENT_BEHAVIOUR: 'auth' });
    expect(init.authMethods?.map((m) => m.id)).toEqual(['scripted-login']);
    expect(await rejection(client.prompt(sessionId, 'hello'))).toMatchObject({ code: -32000 });
    await client.authenticate({ methodId: 'scripted-login' });
    expect(await client.prompt(sessionId, '[[refuse]]')).toMatchObject({ stopReason: 'refusal' });
  });
});

describe('codex through the ACP gateway sign-in', () => {
  it('completes a turn with the model server handed over by authenticate, headers included', async () => {
    const model = await startFakeModel();
    const scratch = join(scratchRoot, 'codex-gateway');
    const cwd = join(scratch, 'work');
    await mkdir(cwd, { recursive: true });
    const setup = await agentTestEnv('codex', model.url, scratch, { codexVia: 'gateway' });
    const { command, args } = testAgentCommand('codex', agentsHome);
    const client = startBareClient({ command, args, env: setup.env, cwd });
    try {
      const init = await client.initialize(setup.initialize);
      expect(init.authMethods?.map((m) => m.id)).toContain('gateway');
      await client.authenticate(setup.authenticate!);
      const { sessionId } = await client.newSession({ cwd });
      model.script({
        when: 'via the gateway',
        steps: [{ kind: 'text', text: 'Hello through the gateway.' }],
      });
      const turn = await client.promptTimed(sessionId, 'Answer via the gateway.');
      expect(turn.answer.stopReason).toBe('end_turn');
      expect(turn.firstTextAt).not.toBeNull();
      expect(turn.firstTextAt!).toBeGreaterThanOrEqual(turn.sentAt);
      expect(client.textOf(sessionId)).toBe('Hello through the gateway.');
      expect(model.mainRequests()[0]?.headers['x-test']).toBe('cairn');
    } finally {
      await client.close();
      await model.close();
    }
    expect(groupGone(client.pid)).toBe(true);
  });
});

describe('the fake model', () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterAll(async () => {
    await model.close();
  });

  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${model.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
  const tools = [{ name: 'Write', input_schema: { type: 'object' } }];
  const dataOf = (sse: string) =>
    sse
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .filter((d) => d !== '[DONE]')
      .map((d) => JSON.parse(d));

  it('streams a scripted Anthropic turn, and answers side requests without taking a turn', async () => {
    model.reset();
    model.script({
      steps: [
        { kind: 'text', text: 'abcdef', deltas: 3 },
        { kind: 'write', path: '/x/y.txt', content: 'z' },
        { kind: 'usage', input: 5, output: 6 },
      ],
    });
    const side = await (await post('/v1/messages', { model: 'm', messages: [] })).json();
    expect(side).toMatchObject({ type: 'message', content: [{ type: 'text' }] });
    const events = dataOf(await (await post('/v1/messages', { model: 'm', stream: true, tools })).text());
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.slice(2, 5).map((e) => e.delta.text)).toEqual(['ab', 'cd', 'ef']);
    expect(events[6].content_block).toMatchObject({ type: 'tool_use', name: 'Write' });
    expect(JSON.parse(`${events[7].delta.partial_json}${events[8].delta.partial_json}`)).toEqual({
      file_path: '/x/y.txt',
      content: 'z',
    });
    expect(events[10]).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 6 } });
    expect(model.requests.map((r) => [r.auxiliary, r.turn])).toEqual([
      [true, null],
      [false, 0],
    ]);
    expect(model.pendingTurns()).toBe(0);
  });

  it('renders the other three dialects, each ending as its clients expect', async () => {
    model.reset();
    const turn = { steps: [{ kind: 'text' as const, text: 'hi', deltas: 1 }] };
    model.script(turn, turn, turn);
    const responses = dataOf(
      await (await post('/v1/responses', { stream: true, tools: [{ type: 'function' }] })).text(),
    );
    expect(responses.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { usage: { input_tokens: 12 } },
    });
    expect(responses.find((e) => e.type === 'response.output_text.delta')?.delta).toBe('hi');
    const chatText = await (
      await post('/v1/chat/completions', { stream: true, tools: [{ type: 'function' }] })
    ).text();
    expect(chatText.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const chat = dataOf(chatText);
    expect(chat.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('hi');
    expect(chat.at(-1)).toMatchObject({ usage: { prompt_tokens: 12, completion_tokens: 7 } });
    const gemini = dataOf(
      await (
        await post('/v1beta/models/g:streamGenerateContent?alt=sse', {
          tools: [{ functionDeclarations: [] }],
        })
      ).text(),
    );
    expect(gemini[0].candidates[0].content.parts).toEqual([{ text: 'hi' }]);
    expect(gemini.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { totalTokenCount: 19 },
    });
    expect((await fetch(`${model.url}/v1/models`)).status).toBe(404);
  });

  it('gives a turn only to a request that names it, paces events, and hangs when told', async () => {
    model.reset();
    model.script({ when: 'mine', steps: [{ kind: 'text', text: 'for me', deltas: 1 }] });
    const stray = dataOf(
      await (await post('/v1/chat/completions', { stream: true, tools: [{}], messages: ['other'] })).text(),
    );
    expect(stray.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Done.');
    const mine = dataOf(
      await (await post('/v1/chat/completions', { stream: true, tools: [{}], messages: ['mine'] })).text(),
    );
    expect(mine.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('for me');

    model.script({ steps: [{ kind: 'text', text: 'slow', deltas: 4 }], paceMs: 40 });
    const started = Date.now();
    await (await post('/v1/chat/completions', { stream: true, tools: [{}] })).text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);

    model.script({ steps: [], hang: true });
    const aborted = await rejection(
      post('/v1/chat/completions', { stream: true, tools: [{}] }, AbortSignal.timeout(300)),
    );
    expect(aborted).toBeDefined();

    model.script({ steps: [{ kind: 'text', text: 'never finished' }], hang: true });
    const response = await post('/v1/chat/completions', { stream: true, tools: [{}] });
    const reader = response.body!.getReader();
    let received = '';
    for (;;) {
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((r) => setTimeout(() => r(null), 300)),
      ]);
      if (next === null || next.done) break;
      received += new TextDecoder().decode(next.value);
    }
    // The content went out; the chunk that would finish it never does.
    expect(
      dataOf(received)
        .map((c) => c.choices[0]?.delta?.content ?? '')
        .join(''),
    ).toBe('never finished');
    expect(received).not.toContain('"finish_reason":"stop"');
    await reader.cancel();
    expect(await model.waitForRequest((r) => r.turn === 3, 1000)).toMatchObject({ dialect: 'openai-chat' });
  });
});
