// The tools of OpenCode, Kilo, pi, Qwen Code and Copilot CLI as the reader shows them: each agent,
// driven against the scripted model on 127.0.0.1, runs a shell command and edits a file through its
// own tools with their own argument shapes (as each offers them to the model), reads a file and edits
// it; then what it wrote to its store is read back and classified into items, and the items must give
// the human forms their input: the command of a shell call, the path of a read, the before and after
// of an edit with its path, and a one-line description that names the command and the file.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptItem } from '@cairn/protocol';
import { listSessions, loadTranscript, nodePlatform } from '@cairn/transcript';
import { classifyTranscript } from '@cairn/transcript/items';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeItem } from '../../cli/src/describe-item.js';
import { editPairs, isShellTool, obj, shellCommand, toolName } from '../../web/src/timeline/item.js';
import { pathOf } from '../../web/src/timeline/results.js';
import type { BuiltInBridgeKey } from '../src/bridges.js';
import { agentTestEnv, ensureTestAgents, testAgentLaunch } from './support/agents.js';
import { groupMembers, startBareClient } from './support/bare-client.js';
import { type FakeModel, startFakeModel } from './support/fake-model.js';

const BEFORE = 'The cairn stands on the ridge.\n';
const OLD = 'on the ridge';
const NEW = 'by the lake';
const COMMAND = 'echo stones-counted';

interface ToolCase {
  readonly key: BuiltInBridgeKey;
  /** The agent's shell tool and its input, as the agent offers it. */
  readonly shell: { name: string; input: (command: string) => Record<string, unknown> };
  /** The agent's tool for reading a file, and its input. */
  readonly read: { name: string; input: (path: string) => Record<string, unknown> };
  /** The agent's edit tool and its input for replacing `OLD` with `NEW` in a file. */
  readonly edit: { name: string; input: (path: string) => Record<string, unknown> };
}

const CASES: readonly ToolCase[] = [
  {
    key: 'opencode',
    shell: { name: 'bash', input: (command) => ({ command, description: 'Counts the stones' }) },
    read: { name: 'read', input: (filePath) => ({ filePath }) },
    edit: { name: 'edit', input: (filePath) => ({ filePath, oldString: OLD, newString: NEW }) },
  },
  {
    key: 'kilo',
    shell: { name: 'bash', input: (command) => ({ command, description: 'Counts the stones' }) },
    read: { name: 'read', input: (filePath) => ({ filePath }) },
    edit: { name: 'edit', input: (filePath) => ({ filePath, oldString: OLD, newString: NEW }) },
  },
  {
    key: 'pi',
    shell: { name: 'bash', input: (command) => ({ command }) },
    read: { name: 'read', input: (path) => ({ path }) },
    edit: { name: 'edit', input: (path) => ({ path, edits: [{ oldText: OLD, newText: NEW }] }) },
  },
  {
    key: 'qwen-code',
    shell: {
      name: 'run_shell_command',
      input: (command) => ({ command, is_background: false, description: 'Counts the stones' }),
    },
    read: { name: 'read_file', input: (file_path) => ({ file_path }) },
    edit: { name: 'edit', input: (file_path) => ({ file_path, old_string: OLD, new_string: NEW }) },
  },
  {
    key: 'copilot-cli',
    shell: {
      name: 'bash',
      input: (command) => ({ command, description: 'Counts the stones', mode: 'sync', initial_wait: 10 }),
    },
    read: { name: 'view', input: (path) => ({ path }) },
    edit: { name: 'edit', input: (path) => ({ path, old_str: OLD, new_str: NEW }) },
  },
];

let agentsHome: string;
let scratchRoot: string;

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  scratchRoot = await mkdtemp(join(tmpdir(), 'cairn-more-agents-tools-'));
}, 900_000);

afterAll(async () => {
  await rm(scratchRoot, { recursive: true, force: true });
});

const input = (item: TranscriptItem) => obj(item, 'input');

describe.each(CASES)('$key', (c) => {
  let model: FakeModel;

  beforeAll(async () => {
    model = await startFakeModel();
  });

  afterAll(async () => {
    await model?.close();
  });

  it('records a shell call, a read and an edit whose items carry the command, the path and the before and after', async () => {
    const scratch = join(scratchRoot, c.key);
    const cwd = join(scratch, 'work');
    await mkdir(cwd, { recursive: true });
    const file = join(cwd, 'cairn.txt');
    await writeFile(file, BEFORE);
    const setup = await agentTestEnv(c.key, model.url, scratch);
    const { command, args, env } = await testAgentLaunch(c.key, agentsHome);
    const client = startBareClient({
      command,
      args,
      env: { ...setup.env, ...env },
      cwd,
      permission: 'allow',
    });
    const prompt = `Count the stones, then move the cairn, ${c.key}.`;
    try {
      await client.initialize(setup.initialize ?? {});
      model.script(
        { when: prompt, steps: [{ kind: 'tool', name: c.shell.name, input: c.shell.input(COMMAND) }] },
        // Qwen Code edits only a file read first.
        { steps: [{ kind: 'tool', name: c.read.name, input: c.read.input(file) }] },
        { steps: [{ kind: 'tool', name: c.edit.name, input: c.edit.input(file) }] },
        { steps: [{ kind: 'text', text: 'Counted and moved.' }] },
      );
      const { sessionId } = await client.newSession({ cwd });
      const answer = await client.prompt(sessionId, prompt);
      expect(answer.stopReason).toBe('end_turn');
      expect(await readFile(file, 'utf8')).toBe(BEFORE.replace(OLD, NEW));
      client.child.stdin?.end();
      await Promise.race([client.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    } finally {
      await client.close();
    }
    expect(groupMembers(client.pid)).toEqual([]);

    const platform = nodePlatform({ env: setup.env, homeDir: setup.env.HOME! });
    let path: string | undefined;
    for await (const entry of listSessions(platform, { agent: c.key }))
      if (!('error' in entry)) path = entry.path;
    expect(path, `${c.key} session listed`).toBeDefined();
    const loaded = await loadTranscript(platform, { agent: c.key, path: path! });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const classified = classifyTranscript(loaded.value);
    if (!classified.ok) throw new Error(classified.error.message);
    const calls = classified.value.items.filter((i) => (i as { role?: string }).role === 'use');

    // The agent's own spelling is the item type; the forms read it by its shape.
    const shell = calls.find((i) => i.type === `tool:${c.shell.name}`);
    expect(shell, `tool:${c.shell.name} among ${calls.map((i) => i.type)}`).toBeDefined();
    expect(isShellTool(toolName(shell!))).toBe(true);
    expect(shellCommand(shell!)).toBe(COMMAND);
    // The one-line description names the command and the file, not the input's JSON.
    expect(describeItem(shell!).endsWith(` ${COMMAND}`)).toBe(true);
    const shellResult = classified.value.items.find(
      (i) => (i as { role?: string }).role === 'result' && i.type === shell!.type,
    );
    expect(JSON.stringify(shellResult)).toContain('stones-counted');

    const read = calls.find((i) => i.type === `tool:${c.read.name}`);
    expect(read, `tool:${c.read.name} among ${calls.map((i) => i.type)}`).toBeDefined();
    expect(pathOf(read!)).toBe(file);
    expect(describeItem(read!).endsWith(` ${file}`)).toBe(true);

    const edit = calls.find((i) => i.type === `tool:${c.edit.name}` && editPairs(input(i)) !== undefined);
    expect(edit, `an edit among ${JSON.stringify(calls.map((i) => [i.type, input(i)]))}`).toBeDefined();
    expect(editPairs(input(edit!))).toEqual([{ old: OLD, new: NEW }]);
    expect(pathOf(edit!)).toBe(file);
    expect(describeItem(edit!).endsWith(` ${file}`)).toBe(true);
  }, 180_000);
});
