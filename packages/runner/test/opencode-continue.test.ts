// Continue for OpenCode: a real turn against the scripted model on 127.0.0.1, the session found by
// cairn's reader in OpenCode's SQLite store under the id ACP gave it (the id the web UI's Continue
// sends), then loaded by a new process with `session/load`, replayed, and continued into the same
// store.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { listSessions, loadTranscript, nodePlatform, type SessionHead } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTestEnv, agentTestEnv, ensureTestAgents, testAgentLaunch } from './support/agents.js';
import { type BareClient, groupMembers, startBareClient } from './support/bare-client.js';
import { type FakeModel, startFakeModel } from './support/fake-model.js';

const KEY = 'opencode';
const PROMPT = 'Tell me about cairns, OpenCode.';
const REPLY = 'A cairn is a pile of stones that marks a path.';
const AGAIN = 'And once more, OpenCode?';

describe('opencode, continued', () => {
  let agentsHome: string;
  let scratch: string;
  let model: FakeModel;
  let setup: AgentTestEnv;
  let cwd: string;
  const clients: BareClient[] = [];

  beforeAll(async () => {
    agentsHome = await ensureTestAgents();
    scratch = await mkdtemp(join(tmpdir(), 'cairn-opencode-continue-'));
    model = await startFakeModel();
    cwd = join(scratch, 'work');
    await mkdir(cwd, { recursive: true });
    setup = await agentTestEnv(KEY, model.url, scratch);
  }, 900_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await model?.close();
    for (const client of clients) expect(groupMembers(client.pid)).toEqual([]);
    await rm(scratch, { recursive: true, force: true });
  });

  async function start(): Promise<{ client: BareClient; init: acp.InitializeResponse }> {
    const { command, args, env } = await testAgentLaunch(KEY, agentsHome);
    const client = startBareClient({
      command,
      args,
      env: { ...setup.env, ...env },
      cwd,
      permission: 'allow',
    });
    clients.push(client);
    const init = await client.initialize(setup.initialize ?? {});
    return { client, init };
  }

  /** Ends the agent as an editor does (closing its stdin), then whatever is left of its group. */
  async function end(client: BareClient): Promise<void> {
    client.child.stdin?.end();
    await Promise.race([client.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    await client.close();
  }

  /** The session as cairn's reader finds it in the store under the scratch home. */
  async function readBack(sessionId: string) {
    const platform = nodePlatform({ env: setup.env, homeDir: setup.env.HOME! });
    let head: SessionHead | undefined;
    for await (const entry of listSessions(platform, { agent: KEY })) {
      if (!('error' in entry) && entry.id === sessionId) head = entry;
    }
    expect(head, `session ${sessionId} listed`).toBeDefined();
    const loaded = await loadTranscript(platform, { agent: KEY, path: head!.path, sessionId });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const prompts = loaded.value.events.flatMap((e) =>
      e.kind === 'user' && e.payload.synthetic !== true ? [e.payload.text] : [],
    );
    return { head: head!, prompts };
  }

  let sessionId: string;

  it('completes a turn whose session the reader lists under the ACP session id, with its folder', async () => {
    const { client } = await start();
    model.script({ when: PROMPT, steps: [{ kind: 'text', text: REPLY, deltas: 4 }] });
    ({ sessionId } = await client.newSession({ cwd }));
    const answer = await client.prompt(sessionId, PROMPT);
    expect(answer.stopReason).toBe('end_turn');
    await end(client);
    const { head, prompts } = await readBack(sessionId);
    // Continue sends the listed id and folder: they must be what `session/load` takes.
    expect(head.cwd).toBe(cwd);
    expect(prompts.filter((t) => t.includes(PROMPT))).toHaveLength(1);
  }, 120_000);

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

    model.script({ when: AGAIN, steps: [{ kind: 'text', text: 'Once more: stones.' }] });
    const from = client.updates.length;
    const answer = await client.prompt(sessionId, AGAIN);
    expect(answer.stopReason).toBe('end_turn');
    expect(client.textOf(sessionId, from).trim()).toBe('Once more: stones.');
    await end(client);

    const { prompts } = await readBack(sessionId);
    expect(prompts.filter((t) => t.includes(PROMPT) || t.includes(AGAIN))).toHaveLength(2);
  }, 120_000);
});
