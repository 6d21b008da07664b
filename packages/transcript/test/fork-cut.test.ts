// Where Claude Code's own fork is cut for a fork from a prompt, on corpus sessions: the model's id
// of the last assistant record of the main chain before that prompt, as the raw file says it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentForkCut } from '../src/fork-cut.js';
import { loadTranscript } from '../src/load.js';
import type { Transcript } from '../src/model.js';
import { nodePlatform } from '../src/platform-node.js';
import { corpus, corpusPath } from './corpus.js';

const POMODORO = corpusPath(
  'claude/projects/-Users-yoavfarhi-dev-pomodoro-claude/36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl',
);
const SHORT = corpusPath('claude/projects/-work-spotter/short.jsonl');
const CODEX = corpusPath(
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl',
);

async function load(path: string, agent: string): Promise<Transcript> {
  const loaded = await loadTranscript(nodePlatform(), { agent, path });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

interface RawRecord {
  type?: string;
  uuid?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  toolUseResult?: unknown;
  message?: { id?: string; content?: unknown };
}

/** The raw file's prompts, each with the model message id of the last assistant record before it. */
function rawPrompts(path: string): { uuid: string; text: string; before?: string }[] {
  const prompts: { uuid: string; text: string; before?: string }[] = [];
  let before: string | undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as RawRecord;
    if (r.isSidechain === true) continue;
    if (r.type === 'assistant' && typeof r.message?.id === 'string') before = r.message.id;
    if (r.type !== 'user' || r.isMeta === true || r.toolUseResult !== undefined || !r.uuid) continue;
    const content = r.message?.content;
    const text = typeof content === 'string' ? content : '';
    if (text === '' || text.startsWith('<')) continue;
    prompts.push({ uuid: r.uuid, text, ...(before === undefined ? {} : { before }) });
  }
  return prompts;
}

describe.skipIf(!corpus)('the cut of Claude Code’s own fork', () => {
  it('is the last model message before each later prompt, and the prompt is given back', async () => {
    const t = await load(POMODORO, 'claude-code');
    const prompts = rawPrompts(POMODORO);
    expect(prompts.length).toBeGreaterThanOrEqual(3);
    for (const p of prompts.slice(1)) {
      expect(p.before).toMatch(/^msg_/);
      expect(agentForkCut(t, p.uuid)).toEqual({ ok: true, messageId: p.before, prompt: p.text });
    }
  });

  it('is none at the first prompt, at an item that is not a prompt, or at an unknown item', async () => {
    const t = await load(POMODORO, 'claude-code');
    const [first] = rawPrompts(POMODORO);
    expect(agentForkCut(t, first!.uuid)).toEqual({
      ok: false,
      reason: `no model message comes before '${first!.uuid}'`,
    });
    const reply = t.events.find((e) => e.kind === 'assistant')!;
    expect(agentForkCut(t, reply.id)).toEqual({ ok: false, reason: `'${reply.id}' is not a prompt` });
    expect(agentForkCut(t, 'no-such-item')).toEqual({ ok: false, reason: "no item 'no-such-item'" });
    // A short session's only prompt has nothing before it either.
    const short = await load(SHORT, 'claude-code');
    expect(agentForkCut(short, rawPrompts(SHORT)[0]!.uuid).ok).toBe(false);
  });

  it('is none for an agent whose own fork takes no cut', async () => {
    const t = await load(CODEX, 'codex');
    const prompt = t.events.find((e) => e.kind === 'user')!;
    expect(agentForkCut(t, prompt.id)).toEqual({ ok: false, reason: "codex's own fork takes no cut" });
  });
});
