// Ids a record gives that cannot name anything (empty, or outside what the contract carries):
// events, sessions and lanes are named by where they are instead.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../src/adapter.js';
import { claudeCodeAdapter } from '../src/adapters/claude-code/index.js';
import { codexAdapter } from '../src/adapters/codex/index.js';
import { geminiCliAdapter } from '../src/adapters/gemini-cli/index.js';
import type { SessionAdapter } from '../src/index.js';
import { isWireId } from '../src/values.js';

const enc = new TextEncoder();
const file = (path: string, records: unknown[]): SourceFile => ({
  path,
  data: enc.encode(records.map((r) => `${JSON.stringify(r)}\n`).join('')),
});
const translate = (adapter: SessionAdapter, ...files: SourceFile[]) => {
  const r = adapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const at = '2026-01-01T00:00:00.000Z';
const BAD_ID = `has spaces / and ${'x'.repeat(300)}`;

describe('ids that name nothing', () => {
  it('Claude Code: an empty uuid gives an event id from the record’s place; a bad agentId gives the file’s', () => {
    const env = { sessionId: 's', timestamp: at };
    const t = translate(
      claudeCodeAdapter,
      file('/p/0f0f0f0f-0000-4000-8000-000000000001.jsonl', [
        { ...env, type: 'user', uuid: '', message: { role: 'user', content: 'hi' } },
        { ...env, type: 'user', uuid: '', message: { role: 'user', content: 'again' } },
      ]),
      file('/p/0f0f0f0f-0000-4000-8000-000000000001/subagents/agent-abc.jsonl', [
        { ...env, type: 'user', uuid: 'x1', agentId: BAD_ID, message: { role: 'user', content: 'sub' } },
      ]),
    );
    const ids = t.events.map((e) => e.id);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(t.agents.map((a) => a.id)).toEqual(['0f0f0f0f-0000-4000-8000-000000000001', 'abc']);
  });

  it('Gemini CLI: an empty message id and a session id the contract cannot carry are not used', () => {
    const t = translate(
      geminiCliAdapter,
      file('/h/.gemini/tmp/p/chats/session-2026-01-01T00-00-0f0f0f0f.jsonl', [
        { sessionId: BAD_ID, projectHash: 'p', startTime: at, lastUpdated: at, kind: 'main' },
        { id: '', timestamp: at, type: 'user', content: [{ text: 'hi' }] },
        { id: '', timestamp: at, type: 'gemini', content: 'hello' },
      ]),
    );
    expect(isWireId(t.session.id)).toBe(true);
    expect(t.agents.every((a) => isWireId(a.id))).toBe(true);
    expect(t.events.every((e) => e.id !== '')).toBe(true);
  });

  it('Codex: a session id the contract cannot carry gives way to the rollout’s name', () => {
    const name = 'rollout-2026-01-01T00-00-00-019b0000-0000-7000-8000-0000000000ee.jsonl';
    const t = translate(
      codexAdapter,
      file(`/h/.codex/sessions/2026/01/01/${name}`, [
        { timestamp: at, type: 'session_meta', payload: { id: BAD_ID, timestamp: at, cwd: '/w' } },
        {
          timestamp: at,
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        },
      ]),
    );
    expect(t.session.id).toBe('019b0000-0000-7000-8000-0000000000ee');
  });
});
