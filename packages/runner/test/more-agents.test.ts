// Qwen Code, Kilo, pi and Copilot CLI, driven through ACP against the scripted model on 127.0.0.1:
// a real turn, then what the agent wrote to its own store read back through cairn's reader (the
// session listed under the ACP session id, the prompt and the reply as events, the model's token
// counts as the request's usage, the summary equal to the fold of the whole transcript), then the
// session loaded in a new process and continued.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import {
  foldTranscript,
  listSessions,
  loadTranscript,
  nodePlatform,
  type SessionHead,
  summarizeSession,
} from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridgeKey } from '../src/bridges.js';
import { type AgentTestEnv, agentTestEnv, ensureTestAgents, testAgentLaunch } from './support/agents.js';
import { type BareClient, groupMembers, startBareClient } from './support/bare-client.js';
import { type FakeModel, startFakeModel } from './support/fake-model.js';

// All four record the model's token counts per request (Copilot CLI in `session.usage_record`),
// Copilot CLI also its process's totals in the `session.shutdown` record it writes when its stdin
// closes.
const KEYS: readonly BuiltInBridgeKey[] = ['qwen-code', 'kilo', 'pi', 'copilot-cli'];

/** The counts the scripted model reports (input includes the cached tokens, as OpenAI's do). */
const USAGE = { input: 1234, output: 56, cached: 200 };

let agentsHome: string;
let scratchRoot: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  scratchRoot = await mkdtemp(join(tmpdir(), 'cairn-more-agents-'));
}, 900_000);

afterAll(async () => {
  await rm(scratchRoot, { recursive: true, force: true });
});

const groupGone = (pid: number) => groupMembers(pid).length === 0;

/**
 * Ends the agent as an editor does, by closing its stdin, so that it finishes its store (Copilot
 * CLI writes its token counts only then); then whatever is left of its group.
 */
async function endGracefully(client: BareClient): Promise<void> {
  client.child.stdin?.end();
  await Promise.race([client.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
  await client.close();
}

describe.each(KEYS.map((key) => ({ key })))('$key', (c) => {
  let model: FakeModel;
  let setup: AgentTestEnv;
  let cwd: string;
  const clients: BareClient[] = [];

  beforeAll(async () => {
    model = await startFakeModel();
    const scratch = join(scratchRoot, c.key);
    cwd = join(scratch, 'work');
    await mkdir(cwd, { recursive: true });
    setup = await agentTestEnv(c.key, model.url, scratch);
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await model?.close();
    for (const client of clients) expect(groupGone(client.pid)).toBe(true);
  });

  async function start(): Promise<{ client: BareClient; init: acp.InitializeResponse }> {
    const { command, args, env } = await testAgentLaunch(c.key, agentsHome);
    const client = startBareClient({
      command,
      args,
      env: { ...setup.env, ...env },
      cwd,
      permission: 'allow',
    });
    clients.push(client);
    const init = await client.initialize(setup.initialize ?? {});
    expect(init.protocolVersion).toBe(1);
    return { client, init };
  }

  /** The session as cairn's reader finds it in the agent's store under the scratch home. */
  async function readBack(sessionId: string) {
    const platform = nodePlatform({ env: setup.env, homeDir: setup.env.HOME! });
    let head: SessionHead | undefined;
    const failures: unknown[] = [];
    for await (const entry of listSessions(platform, { agent: c.key })) {
      if ('error' in entry) failures.push(entry);
      else if (entry.id === sessionId) head = entry;
    }
    expect(failures).toEqual([]);
    expect(head, `${c.key} session ${sessionId} listed`).toBeDefined();
    const loaded = await loadTranscript(platform, { agent: c.key, path: head!.path, sessionId });
    if (!loaded.ok) throw new Error(`${c.key}: ${JSON.stringify(loaded.error)}`);
    // The summary (the agent's own pass where it has one) gives the numbers of the whole transcript.
    const summary = await summarizeSession(
      platform,
      { agent: c.key, path: head!.path, sessionId },
      { prompts: true },
    );
    if (!summary.ok) throw new Error(`${c.key}: ${JSON.stringify(summary.error)}`);
    expect(summary.value).toEqual(foldTranscript(loaded.value, { prompts: true }));
    return { head: head!, transcript: loaded.value };
  }

  let sessionId: string;
  const PROMPT = `Tell me about cairns, ${c.key}.`;
  const REPLY = 'A cairn is a pile of stones that marks a path.';

  it('completes a real turn, and its store reads back with the session id, text and usage', async () => {
    const { client } = await start();
    model.script({
      when: PROMPT,
      steps: [
        { kind: 'text', text: REPLY, deltas: 4 },
        { kind: 'usage', ...USAGE },
      ],
    });
    ({ sessionId } = await client.newSession({ cwd }));
    const from = client.updates.length;
    const answer = await client.prompt(sessionId, PROMPT);
    expect(answer.stopReason).toBe('end_turn');
    // pi's adapter starts its first answer with a line break of its own.
    expect(client.textOf(sessionId, from).trim()).toBe(REPLY);
    expect(model.pendingTurns()).toBe(0);
    await endGracefully(client);

    const { transcript } = await readBack(sessionId);
    expect(transcript.session.id).toBe(sessionId);
    const texts = (kind: 'user' | 'assistant') =>
      transcript.events.flatMap((e) => (e.kind === kind ? [(e.payload as { text: string }).text] : []));
    expect(texts('user').join('\n')).toContain(PROMPT);
    expect(texts('assistant').join('')).toContain(REPLY);
    // One model request, so the store's requests add up to the counts the model sent.
    expect(model.mainRequests()).toHaveLength(1);
    const usages = transcript.events.flatMap((e) =>
      e.kind === 'request' && e.payload.usage !== undefined ? [e.payload.usage] : [],
    );
    expect(usages.map((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens])).toEqual([
      [USAGE.input, USAGE.output, USAGE.cached],
    ]);
  }, 90_000);

  it('loads the session in a new process, replaying it, and continues it into the same store', async () => {
    const { client, init } = await start();
    expect(init.agentCapabilities?.loadSession).toBe(true);
    await client.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = client.updatesOf(sessionId).map((u) => u.update);
    const said = (kind: 'user_message_chunk' | 'agent_message_chunk') =>
      replayed
        .flatMap((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? [u.content.text] : []))
        .join('');
    expect(said('user_message_chunk')).toContain(PROMPT);
    expect(said('agent_message_chunk')).toContain(REPLY);

    const again = `And once more, ${c.key}?`;
    model.script({ when: again, steps: [{ kind: 'text', text: 'Once more: stones.' }] });
    const from = client.updates.length;
    const answer = await client.prompt(sessionId, again);
    expect(answer.stopReason).toBe('end_turn');
    expect(client.textOf(sessionId, from).trim()).toBe('Once more: stones.');
    await endGracefully(client);

    const { transcript } = await readBack(sessionId);
    const prompts = transcript.events.flatMap((e) =>
      e.kind === 'user' && e.payload.synthetic !== true ? [e.payload.text] : [],
    );
    expect(prompts.filter((t) => t.includes(PROMPT) || t.includes(again))).toHaveLength(2);
  }, 90_000);
});
