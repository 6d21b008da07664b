// The four real adapters, driven by a bare SDK client against the scripted model on 127.0.0.1:
// a real turn with text, thinking, a file write that needs permission and usage; the same with
// the permission refused; a cancelled turn; and the sign-in error when there are no credentials.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridgeKey } from '../src/bridges.js';
import { agentNoCredentialsEnv, agentTestEnv, ensureTestAgents, testAgentCommand } from './support/agents.js';
import {
  type BareClient,
  groupMembers,
  type PermissionPolicy,
  startBareClient,
} from './support/bare-client.js';
import { type FakeModel, type RecordedRequest, startFakeModel } from './support/fake-model.js';

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
  /** How a tool's result reads in the model request that follows it. */
  readonly toolResult: (request: RecordedRequest) => boolean;
  /** How the turn ends after `session/cancel`. */
  readonly cancelStops: readonly acp.StopReason[];
}

const bodyText = (r: RecordedRequest) => JSON.stringify(r.body);

const CASES: readonly AgentCase[] = [
  {
    key: 'claude-code',
    asking: async (client, sessionId) => {
      await client.request('session/set_mode', { sessionId, modeId: 'default' });
    },
    deniedStop: 'end_turn',
    usage: 'notifications',
    signInAt: 'session/prompt',
    toolResult: (r) => bodyText(r).includes('"tool_result"'),
    cancelStops: ['cancelled'],
  },
  {
    key: 'codex',
    deniedStop: 'cancelled',
    usage: 'notifications',
    signInAt: 'session/new',
    toolResult: (r) => /"(custom_tool_call_output|function_call_output)"/.test(bodyText(r)),
    cancelStops: ['cancelled'],
  },
  {
    key: 'gemini-cli',
    deniedStop: 'end_turn',
    usage: 'answer-meta',
    signInAt: 'session/new',
    toolResult: (r) => bodyText(r).includes('"functionResponse"'),
    cancelStops: ['cancelled', 'end_turn'],
  },
  {
    key: 'opencode',
    deniedStop: 'end_turn',
    usage: 'answer',
    signInAt: 'session/prompt',
    toolResult: (r) => bodyText(r).includes('"role":"tool"'),
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

  beforeAll(async () => {
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
    if (pid !== undefined) expect(groupGone(pid)).toBe(true);
  });

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
    expect(c.toolResult(main[1]!)).toBe(true);
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
    const scratch = join(scratchRoot, `${c.key}-signed-out`);
    const signedOutCwd = join(scratch, 'work');
    await mkdir(signedOutCwd, { recursive: true });
    const setup = await agentNoCredentialsEnv(c.key, scratch);
    const { command, args } = testAgentCommand(c.key, agentsHome);
    const bare = startBareClient({ command, args, env: setup.env, cwd: signedOutCwd, permission: 'deny' });
    try {
      await bare.initialize();
      if (c.signInAt === 'session/new') {
        expect(await rejection(bare.newSession())).toMatchObject({ code: -32000 });
      } else {
        const session = await bare.newSession();
        expect(await rejection(bare.prompt(session.sessionId, 'Hello?'))).toMatchObject({ code: -32000 });
      }
    } finally {
      await bare.close();
    }
    expect(groupGone(bare.pid)).toBe(true);
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
