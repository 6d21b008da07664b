// The shell and file tools of Copilot CLI, OpenCode and Qwen Code in the corpus samples, as the
// reader's forms and the CLI's one-line description read them: each sample is laid out in a scratch
// home as its agent keeps it, read and classified into items as the server does, and a call must give
// its command or its path by the agent's own argument names.
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptItem } from '@cairn/protocol';
import { listSessions, loadTranscript, nodePlatform } from '@cairn/transcript';
import { classifyTranscript } from '@cairn/transcript/items';
import { describe, expect, it } from 'vitest';
import { describeItem } from '../../cli/src/describe-item.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import { isShellTool, shellCommand, toolName } from '../src/timeline/item.js';
import { pathOf } from '../src/timeline/results.js';

/** Every call item of every session of `agent` under `home`. */
async function callsOf(home: string, agent: string): Promise<TranscriptItem[]> {
  const platform = nodePlatform({ env: { HOME: home }, homeDir: home });
  const calls: TranscriptItem[] = [];
  for await (const entry of listSessions(platform, { agent })) {
    if ('error' in entry) throw new Error(entry.error.message);
    const loaded = await loadTranscript(platform, { agent, path: entry.path, sessionId: entry.id });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const classified = classifyTranscript(loaded.value);
    if (!classified.ok) throw new Error(classified.error.message);
    calls.push(...classified.value.items.filter((i) => (i as { role?: string }).role === 'use'));
  }
  return calls;
}

describe.skipIf(!corpus)('the new agents’ tools in the corpus, as the reader shows them', () => {
  const home = mkdtempSync(join(tmpdir(), 'cairn-agent-tools-'));
  for (const name of ['large', 'small']) {
    mkdirSync(join(home, '.copilot', 'session-state', name), { recursive: true });
    cpSync(
      corpusPath('more', 'copilot', `${name}.jsonl`),
      join(home, '.copilot', 'session-state', name, 'events.jsonl'),
    );
  }
  const chats = join(home, '.qwen', 'projects', 'project', 'chats');
  mkdirSync(chats, { recursive: true });
  const qwenSession = '019f0000-0000-7000-8000-000000000001';
  cpSync(corpusPath('more', 'qwen', `${qwenSession}.jsonl`), join(chats, `${qwenSession}.jsonl`));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  buildStore(join(home, '.local', 'share', 'opencode', 'opencode.db'), [
    corpusPath('more', 'opencode', 'storage_v2'),
  ]);

  it('reads Copilot CLI’s bash and shell calls as shell commands', async () => {
    const calls = await callsOf(home, 'copilot-cli');
    const shells = calls.filter((c) => isShellTool(toolName(c)));
    expect(shells.map((c) => [c.type, shellCommand(c)]).sort()).toEqual([
      ['tool:bash', 'echo hi'],
      ['tool:bash', "printf 'line1\\nline2\\nline3\\n'"],
      ['tool:shell', 'ls'],
    ]);
    // The one-line description names the command, not the input's JSON.
    for (const c of shells) expect(describeItem(c).endsWith(` ${shellCommand(c)}`)).toBe(true);
  });

  it('reads OpenCode’s bash calls, kept in its SQLite store, as shell commands', async () => {
    const calls = await callsOf(home, 'opencode');
    const shells = calls.filter((c) => isShellTool(toolName(c)));
    expect(shells.map((c) => [c.type, shellCommand(c)])).toEqual([
      ['tool:bash', 'ls'],
      ['tool:bash', 'ls /non-existent-directory'],
    ]);
    for (const c of shells) expect(describeItem(c).endsWith(` ${shellCommand(c)}`)).toBe(true);
  });

  it('reads Qwen Code’s read_file call as a read of its path', async () => {
    const calls = await callsOf(home, 'qwen-code');
    const read = calls.find((c) => c.type === 'tool:read_file');
    expect(read).toBeDefined();
    expect(pathOf(read!)).toBe('/tmp/as-qwen-fixture/project/README.md');
    expect(describeItem(read!)).toMatch(/ \/tmp\/as-qwen-fixture\/project\/README\.md$/);
  });
});
