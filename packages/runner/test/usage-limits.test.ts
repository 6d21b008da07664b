// Usage and rate limits as Qwen Code, pi, Copilot CLI, OpenCode and Kilo report them. Each agent is
// driven for real through cairn's driven session against the fake model, which refuses every model
// request with the 429 its provider sends: OpenAI's `insufficient_quota` (a spent quota) and
// `rate_limit_exceeded` (with retry-after and "try again in 1s"), and Anthropic's `rate_limit_error`
// for the agents that can be pointed at Anthropic's API. The turn's end, as the chat receives it (the
// failure's message, or the reply of an agent that answers a limit with one), must be recognised
// with the right kind, and with the reset when the agent passes it on; an ordinary refusal (a 400)
// must not be. pi, through pi-acp, ends every such turn `end_turn` and says nothing, but pi's own
// store keeps the provider's words: the driven session reads them back from there (the bridge's
// `errorsInStore`), so the turn fails with them as it does for the others, and only with an error
// written during that turn.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSessions, loadTranscript, markTurnErrorsOnNode, nodePlatform } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLimitReply, type UsageLimit, usageLimitOf } from '../../web/src/chat/usage-limit.js';
import { type BuiltInBridgeKey, builtInBridge } from '../src/bridges.js';
import { DrivenSession, type TurnDoneFrame } from '../src/driven-session.js';
import { Journal } from '../src/journal.js';
import { type AgentTestEnv, agentTestEnv, ensureTestAgents, testAgentLaunch } from './support/agents.js';
import {
  type Dialect,
  type FailureAnswer,
  type FakeModel,
  type LimitAnswer,
  startFakeModel,
} from './support/fake-model.js';

type Provider = 'openai' | 'anthropic';

/** What one refused turn must come to: what the agent says, and the limit the chat reads in it. */
interface Expected {
  /** How the turn ends: failed with this message, or answered with this reply. */
  readonly said: { readonly error: RegExp } | { readonly reply: RegExp };
  readonly limit: UsageLimit | null;
}

interface Case {
  readonly key: BuiltInBridgeKey;
  readonly provider: Provider;
  readonly quota: Expected;
  readonly rate: Expected;
  readonly other: Expected;
}

const WAIT = 1;
/** The limits a case's model answers with. The message names a second; the headers ask for a
 * hundredth, so that the agents' own retries of the 429 (six of them, at the header's pace) cost no
 * test time. Copilot CLI takes so short a wait as none and backs off on its own for close to a
 * minute, so its headers say the second too. */
function limitsFor(key: BuiltInBridgeKey): { quota: LimitAnswer; rate: LimitAnswer } {
  const headerRetryAfterSeconds = key === 'copilot-cli' ? WAIT : 0.01;
  return {
    quota: { kind: 'quota', retryAfterSeconds: WAIT, headerRetryAfterSeconds },
    rate: { kind: 'rate', retryAfterSeconds: WAIT, headerRetryAfterSeconds },
  };
}

/** A bad request, as each provider refuses one: no limit in it, and not worth a retry. */
const BAD_REQUEST: Record<Provider, FailureAnswer> = {
  openai: {
    status: 400,
    body: {
      error: {
        message: "Invalid 'messages': empty array.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'empty_array',
      },
    },
  },
  anthropic: {
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: at least one message is required' },
    },
  },
};

// OpenCode and Kilo pass the provider's message on after "Internal error: ".
const openCodeLike = (key: BuiltInBridgeKey): Case => ({
  key,
  provider: 'openai',
  quota: {
    said: { error: /^Internal error: You exceeded your current quota, please check your plan/ },
    limit: { kind: 'usage' },
  },
  rate: {
    said: { error: /^Internal error: Rate limit reached for requests\. Please try again in 1s\.$/ },
    limit: { kind: 'rate', resets: '1s' },
  },
  other: { said: { error: /^Internal error: Invalid 'messages': empty array\.$/ }, limit: null },
});

// Copilot CLI answers with its failure as the reply, after five retries.
const COPILOT_FAILED = 'Error: Failed to get response from the AI model; retried 5 times';

const CASES: readonly Case[] = [
  {
    // Every 429 comes out as the same rate limit: the body, and with it a spent quota, is dropped.
    key: 'qwen-code',
    provider: 'openai',
    quota: { said: { error: /^Rate limit exceeded\. Try again later\.$/ }, limit: { kind: 'rate' } },
    rate: { said: { error: /^Rate limit exceeded\. Try again later\.$/ }, limit: { kind: 'rate' } },
    other: { said: { error: /^Internal error: 400 Invalid 'messages': empty array\.$/ }, limit: null },
  },
  openCodeLike('opencode'),
  {
    key: 'opencode',
    provider: 'anthropic',
    quota: {
      said: { error: /^Internal error: This request would exceed your organization’s usage limit\.$/ },
      limit: { kind: 'usage' },
    },
    rate: {
      said: { error: /^Internal error: This request would exceed the rate limit for your organization/ },
      limit: { kind: 'rate' },
    },
    other: { said: { error: /^Internal error: messages: at least one message is required$/ }, limit: null },
  },
  openCodeLike('kilo'),
  {
    key: 'copilot-cli',
    provider: 'openai',
    quota: {
      said: { reply: new RegExp(`^${COPILOT_FAILED} .*Last error: 429 You exceeded your current quota`) },
      limit: { kind: 'usage' },
    },
    rate: {
      said: {
        reply: new RegExp(
          `^${COPILOT_FAILED} .*Last error: 429 Rate limit reached for requests\\. Please try again in 1s\\.$`,
        ),
      },
      limit: { kind: 'rate', resets: '1s' },
    },
    other: { said: { reply: /^Error: 400 Invalid 'messages': empty array\.$/ }, limit: null },
  },
  {
    // With a model it has no figures for, a warning of its own comes first in the same reply.
    key: 'copilot-cli',
    provider: 'anthropic',
    quota: {
      said: {
        reply: new RegExp(
          `${COPILOT_FAILED} .*Last error: 429 This request would exceed your organization’s usage limit\\.$`,
        ),
      },
      limit: { kind: 'usage' },
    },
    rate: {
      said: {
        reply: new RegExp(`${COPILOT_FAILED} .*Last error: 429 This request would exceed the rate limit`),
      },
      limit: { kind: 'rate' },
    },
    other: { said: { reply: /Error: 400 messages: at least one message is required$/ }, limit: null },
  },
  {
    // pi's error never reaches ACP (pi-acp ends the turn as if it had answered, with no text): it
    // is read back from pi's session file, where pi writes the provider's status and message.
    key: 'pi',
    provider: 'openai',
    quota: {
      said: { error: /^429 You exceeded your current quota, please check your plan/ },
      limit: { kind: 'usage' },
    },
    rate: {
      said: { error: /^429 Rate limit reached for requests\. Please try again in 1s\.$/ },
      limit: { kind: 'rate', resets: '1s' },
    },
    other: { said: { error: /^400 Invalid 'messages': empty array\.$/ }, limit: null },
  },
];

let agentsHome: string;
let scratchRoot: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  scratchRoot = await mkdtemp(join(tmpdir(), 'cairn-usage-limits-'));
}, 900_000);

afterAll(async () => {
  for (const name of started.keys()) await stop(name);
  await rm(scratchRoot, { recursive: true, force: true });
});

/** The limit the chat reads in a turn's end: its error, else a reply that is a limit's word. */
function limitAsChatReads(done: TurnDoneFrame, reply: string): UsageLimit | null {
  return usageLimitOf(done.error ?? (isLimitReply(reply) ? reply : undefined));
}

/** The recipe pointed at the provider's API, with the agent's retries cut short where it lets them be. */
async function limitEnv(c: Case, model: FakeModel, scratch: string): Promise<AgentTestEnv> {
  const setup = await agentTestEnv(c.key, model.url, scratch);
  const env = { ...setup.env };
  if (c.key === 'qwen-code') {
    // Otherwise it retries a 429 ten times more, the first after a minute: a turn of many minutes.
    const path = join(env.HOME!, '.qwen', 'settings.json');
    const settings = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...settings, model: { generationConfig: { maxRetries: 0 } } }));
  }
  if (c.key === 'pi') {
    // Its own retries (3, after 2, 4 and 8 s) run on after pi-acp has ended the turn, and their
    // "Retrying…" lines land in whatever turn comes next; its provider's client retries too.
    const path = join(env.HOME!, '.pi', 'agent', 'settings.json');
    const settings = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(
      path,
      JSON.stringify({ ...settings, retry: { enabled: false, provider: { maxRetries: 0 } } }),
    );
  }
  if (c.provider === 'anthropic') {
    if (c.key === 'copilot-cli') {
      env.COPILOT_PROVIDER_TYPE = 'anthropic';
      env.COPILOT_PROVIDER_BASE_URL = model.url;
    } else if (c.key === 'opencode') {
      const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT!);
      config.provider.fake.npm = '@ai-sdk/anthropic';
      env.OPENCODE_CONFIG_CONTENT = JSON.stringify(config);
    } else {
      throw new Error(`no Anthropic recipe for ${c.key}`);
    }
  }
  return { ...setup, env };
}

const DIALECTS: Record<Provider, Dialect> = { openai: 'openai-chat', anthropic: 'anthropic' };

/** One case's agent, opened through a driven session against a fake model of its own. */
interface Started {
  readonly model: FakeModel;
  readonly journal: Journal;
  readonly session: DrivenSession;
  readonly agentEnv: Record<string, string>;
  /** The text of each turn's reply, one entry a turn. */
  readonly replies: string[];
  readonly ends: TurnDoneFrame[];
}

async function startCase(c: Case): Promise<Started> {
  const model = await startFakeModel();
  const scratch = join(scratchRoot, `${c.key}-${c.provider}`);
  const cwd = join(scratch, 'work');
  await mkdir(cwd, { recursive: true });
  const setup = await limitEnv(c, model, scratch);
  const { command, args, env } = await testAgentLaunch(c.key, agentsHome);
  // As the server's and the workstation's launches carry it, for a bridge that declares it.
  const inStore = builtInBridge(c.key)?.errorsInStore;
  const storeErrors = inStore ? { agent: inStore, read: markTurnErrorsOnNode } : undefined;
  const journal = Journal.open(':memory:');
  const sessionRef = `${c.key}-${c.provider}`;
  journal.upsertSession({
    sessionRef,
    agentKey: c.key,
    bridge: c.key,
    cwd,
    nativeSessionId: null,
    openFrame: {},
  });
  const replies: string[] = [];
  const ends: TurnDoneFrame[] = [];
  const session = new DrivenSession(
    sessionRef,
    {
      command: { command, args },
      cwd,
      env: { ...setup.env, ...env },
      limits: { turnMs: 240_000 },
      ...(storeErrors ? { storeErrors } : {}),
    },
    journal,
    {
      event: (frame) => {
        const payload = frame.payload as { content?: { type?: string; text?: string } };
        const inTurn = replies.length > 0;
        if (inTurn && frame.eventName === 'agent_message_chunk' && payload.content?.type === 'text') {
          replies[replies.length - 1] += payload.content.text ?? '';
        }
      },
      turnDone: (frame) => ends.push(frame),
      lost: () => {},
    },
    null,
  );
  const opened = await session.ensureOpen().catch((error: unknown) => ({ ok: false as const, error }));
  if (!opened.ok) {
    // Nothing of a case that did not start is left running.
    await session.close();
    journal.close();
    await model.close();
    if ('error' in opened) throw opened.error;
    throw new Error(`${c.key} did not start: ${opened.refusal.message}`);
  }
  return { model, journal, session, agentEnv: setup.env, replies, ends };
}

const nameOf = (c: Case) => `${c.key} on ${c.provider}`;

// Each case's agent starts while the case before it runs its turns, which mostly wait (on the
// model's answers, and on the agents' own retries of a 429): a start is most of a case's time.
const started = new Map<string, Promise<Started>>();
const stopped = new Set<string>();

function start(c: Case): Promise<Started> {
  let opening = started.get(nameOf(c));
  if (opening === undefined) {
    opening = startCase(c);
    // The case's own hook awaits it; this only keeps a failure before then from going unhandled.
    opening.catch(() => {});
    started.set(nameOf(c), opening);
  }
  return opening;
}

async function stop(name: string): Promise<void> {
  if (stopped.has(name)) return;
  stopped.add(name);
  const done = await started.get(name)?.catch(() => undefined);
  if (done === undefined) return;
  await done.session.close();
  done.journal.close();
  await done.model.close();
}

describe.each(CASES.map((c, i) => ({ ...c, name: nameOf(c), next: CASES[i + 1] })))('$name', (c) => {
  let model: FakeModel;
  let session: DrivenSession;
  let agentEnv: Record<string, string>;
  let replies: string[];
  let ends: TurnDoneFrame[];

  beforeAll(async () => {
    ({ model, session, agentEnv, replies, ends } = await start(c));
    if (c.next !== undefined) start(c.next);
  }, 120_000);

  afterAll(() => stop(c.name));

  /** One turn with every model request refused so; what the chat receives of its end. */
  async function refusedTurn(refuse: (dialect: Dialect) => void, prompt: string) {
    const dialect = DIALECTS[c.provider];
    refuse(dialect);
    replies.push('');
    try {
      await session.prompt(prompt);
    } finally {
      model.limit(dialect, null);
      model.fail(dialect, null);
    }
    const done = ends.at(-1)!;
    // pi's adapter starts its first answer with a line break of its own.
    return { done, reply: replies.at(-1)!.trim() };
  }

  function expectSaid({ done, reply }: { done: TurnDoneFrame; reply: string }, expected: Expected) {
    if ('error' in expected.said) {
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(expected.said.error);
    } else {
      expect(done.status).toBe('completed');
      expect(done.stopReason).toBe('end_turn');
      expect(reply).toMatch(expected.said.reply);
    }
    expect(limitAsChatReads(done, reply)).toEqual(expected.limit);
  }

  it('a spent quota', async () => {
    const turn = await refusedTurn((d) => model.limit(d, limitsFor(c.key).quota), `Quota, ${c.key}?`);
    expect(model.mainRequests().length).toBeGreaterThan(0);
    expectSaid(turn, c.quota);
  }, 240_000);

  it('a rate limit', async () => {
    const turn = await refusedTurn((d) => model.limit(d, limitsFor(c.key).rate), `Rate, ${c.key}?`);
    expectSaid(turn, c.rate);
  }, 240_000);

  // An error read back from the store belongs to the turn that wrote it: the next turn, answered,
  // carries none (the refused turns' errors are still the last ones in the file before it starts).
  if (builtInBridge(c.key)?.errorsInStore) {
    it('an answered turn after the limits is no failure', async () => {
      replies.push('');
      await session.prompt(`Answer now, ${c.key}?`);
      const done = ends.at(-1)!;
      expect(done).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      expect(done.error).toBeUndefined();
      expect(replies.at(-1)!.trim()).toBe('Done.');
      expect(limitAsChatReads(done, replies.at(-1)!)).toBeNull();
    }, 240_000);
  }

  // What pi-acp drops, pi keeps: each refused request is in its store with the provider's words.
  if (c.key === 'pi') {
    it("pi's own store keeps the limits, in words the rules know", async () => {
      const platform = nodePlatform({ env: agentEnv, homeDir: agentEnv.HOME! });
      let path: string | undefined;
      for await (const entry of listSessions(platform, { agent: 'pi' })) {
        if (!('error' in entry) && entry.id === session.nativeSessionId) path = entry.path;
      }
      expect(path, "the session in pi's store").toBeDefined();
      const loaded = await loadTranscript(platform, {
        agent: 'pi',
        path: path!,
        sessionId: session.nativeSessionId!,
      });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      const errors = loaded.value.events.flatMap((e) =>
        e.kind === 'system' && e.payload.type === 'api_error' ? [e.payload.text ?? ''] : [],
      );
      expect(errors.map((text) => [text, usageLimitOf(text)])).toEqual([
        [expect.stringMatching(/You exceeded your current quota/), { kind: 'usage' }],
        [expect.stringMatching(/Rate limit reached for requests/), { kind: 'rate', resets: '1s' }],
      ]);
    });
  }

  it('an ordinary refusal is no limit', async () => {
    const turn = await refusedTurn((d) => model.fail(d, BAD_REQUEST[c.provider]), `Bad request, ${c.key}?`);
    expectSaid(turn, c.other);
  }, 240_000);
});
