// Permissions and cancelling for Qwen Code, Kilo, pi and Copilot CLI, driven through ACP against the
// scripted model on 127.0.0.1: the model asks for a file write through the agent's own write tool;
// the agent asks the client first, and the file is written when the client allows it and not when it
// refuses. pi has no permission step (pi-acp never asks and pi runs every tool it is given), so for pi
// the test holds that the write happens without a question. A turn whose model is still streaming
// ends `cancelled` on session/cancel, for each of the four.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridgeKey } from '../src/bridges.js';
import { agentTestEnv, ensureTestAgents, testAgentLaunch } from './support/agents.js';
import {
  type BareClient,
  groupMembers,
  type PermissionPolicy,
  startBareClient,
} from './support/bare-client.js';
import { type FakeModel, startFakeModel } from './support/fake-model.js';

interface PermissionCase {
  readonly key: BuiltInBridgeKey;
  /** The agent's own tool for writing a new file, and its input. */
  readonly write: (path: string, content: string) => { name: string; input: Record<string, unknown> };
  /** Whether the agent asks before writing; when it does, what puts a new session where it asks. */
  readonly asks: false | { readonly mode?: string };
}

const CASES: readonly PermissionCase[] = [
  {
    key: 'qwen-code',
    write: (file_path, content) => ({ name: 'write_file', input: { file_path, content } }),
    // A new session starts in `auto`, where a classifier lets a write through unasked.
    asks: { mode: 'default' },
  },
  {
    key: 'kilo',
    // The test configuration sets `permission.edit: 'ask'`, as for OpenCode.
    write: (filePath, content) => ({ name: 'write', input: { filePath, content } }),
    asks: {},
  },
  {
    key: 'pi',
    write: (path, content) => ({ name: 'write', input: { path, content } }),
    asks: false,
  },
  {
    key: 'copilot-cli',
    write: (path, file_text) => ({ name: 'create', input: { path, file_text } }),
    asks: {},
  },
];

let agentsHome: string;
let scratchRoot: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  scratchRoot = await mkdtemp(join(tmpdir(), 'cairn-more-agents-permission-'));
}, 900_000);

afterAll(async () => {
  await rm(scratchRoot, { recursive: true, force: true });
});

const exists = (path: string) =>
  readFile(path).then(
    () => true,
    () => false,
  );

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
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
    const { command, args, env } = await testAgentLaunch(c.key, agentsHome);
    client = startBareClient({
      command,
      args,
      env: { ...setup.env, ...env },
      cwd,
      permission: (request) => {
        const wanted = policy === 'allow' ? 'allow_once' : 'reject_once';
        return request.options.find((o) => o.kind === wanted)?.optionId ?? null;
      },
    });
    await client.initialize(setup.initialize ?? {});
  }, 120_000);

  afterAll(async () => {
    const pid = client?.pid;
    await client?.close();
    await model?.close();
    if (pid !== undefined) expect(groupMembers(pid)).toEqual([]);
  });

  async function openSession(): Promise<string> {
    const { sessionId } = await client.newSession({ cwd });
    const mode = c.asks === false ? undefined : c.asks.mode;
    if (mode !== undefined) await client.request('session/set_mode', { sessionId, modeId: mode });
    return sessionId;
  }

  /** A turn in which the model writes `name` through the agent's tool, then says it is done. */
  async function writeTurn(name: string): Promise<{ answer: acp.PromptResponse; target: string }> {
    model.reset();
    client.permissions.length = 0;
    const target = join(cwd, name);
    const prompt = `Write ${name}, ${c.key}.`;
    const write = c.write(target, 'written by the agent\n');
    model.script(
      { when: prompt, steps: [{ kind: 'tool', name: write.name, input: write.input }] },
      { steps: [{ kind: 'text', text: 'Done with the file.' }] },
    );
    const sessionId = await openSession();
    const answer = await client.prompt(sessionId, prompt);
    return { answer, target };
  }

  if (c.asks !== false) {
    it('asks before writing a file, and writes it when allowed', async () => {
      policy = 'allow';
      const { answer, target } = await writeTurn('allowed.txt');
      expect(answer.stopReason).toBe('end_turn');
      expect(client.permissions).toHaveLength(1);
      const asked = client.permissions[0]!;
      expect(asked.request.options.map((o) => o.kind)).toEqual(
        expect.arrayContaining(['allow_once', 'allow_always', 'reject_once']),
      );
      expect(asked.answer).toMatchObject({ outcome: { outcome: 'selected' } });
      expect(await readFile(target, 'utf8')).toBe('written by the agent\n');
    }, 120_000);

    it('does not write the file when the permission is refused', async () => {
      policy = 'deny';
      const { answer, target } = await writeTurn('refused.txt');
      expect(answer.stopReason).toBe('end_turn');
      expect(client.permissions).toHaveLength(1);
      const refusal = client.permissions[0]!.request.options.find((o) => o.kind === 'reject_once')!;
      expect(client.permissions[0]!.answer).toEqual({
        outcome: { outcome: 'selected', optionId: refusal.optionId },
      });
      expect(await exists(target)).toBe(false);
    }, 120_000);
  } else {
    it('writes the file without asking: the agent has no permission step', async () => {
      policy = 'deny';
      const { answer, target } = await writeTurn('unasked.txt');
      expect(answer.stopReason).toBe('end_turn');
      expect(client.permissions).toEqual([]);
      expect(await readFile(target, 'utf8')).toBe('written by the agent\n');
    }, 120_000);
  }

  it('ends a turn as cancelled on session/cancel while the model is still answering', async () => {
    model.reset();
    const prompt = `Take your time, ${c.key}.`;
    model.script({
      when: prompt,
      steps: [{ kind: 'text', text: 'Starting a long answer', deltas: 1 }],
      hang: true,
    });
    const sessionId = await openSession();
    const from = client.updates.length;
    const turn = client.prompt(sessionId, prompt);
    await waitFor(() => client.textOf(sessionId, from).includes('Starting a long answer'), 60_000);
    await client.cancel(sessionId);
    expect((await turn).stopReason).toBe('cancelled');
  }, 120_000);
});
