// A session's model is its main lane's, whatever its subagents ran; its active time is the time
// spent in turns, apart from the wall-clock span of its records.
import { describe, expect, it } from 'vitest';
import {
  isPrompt,
  loadTranscript,
  modelAndTime,
  type Transcript,
  type TranscriptEvent,
  TurnClock,
} from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform } from './homes.js';

// Its main agent ran Opus; its subagents ran Haiku.
const OPUS_WITH_HAIKU = corpusPath(
  'claude/projects/-work-spotter',
  'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl',
);
// A Codex session resumed over two days: its records span a day, its turns some hours.
const RESUMED_CODEX = corpusPath(
  'codex/sessions/2026/02/23',
  'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
);

async function load(path: string): Promise<Transcript> {
  const loaded = await loadTranscript(corpusPlatform(), { path });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

const HOUR = 3_600_000;

describe.skipIf(!corpus)('the model and the time of a session', () => {
  it("names the main lane's model and shows the subagents' as the rest of the mix", async () => {
    const t = await load(OPUS_WITH_HAIKU);
    const facts = modelAndTime(t);
    expect(facts.model).toBe('claude-opus-4-6');
    const haiku = facts.models.find((m) => m.model.startsWith('claude-haiku'));
    expect(haiku).toBeDefined();
    expect(haiku!.mainRequests).toBe(0);
    expect(haiku!.requests).toBeGreaterThan(0);
    expect(facts.models[0]!.model).toBe('claude-opus-4-6');
    // Every request naming a model is in the mix once.
    const named = t.events.filter((e) => e.kind === 'request' && e.payload.model !== undefined);
    expect(facts.models.reduce((n, m) => n + m.requests, 0)).toBe(named.length);
  });

  it('keeps the main model when the subagents made more requests than the main lane', async () => {
    const t = await load(OPUS_WITH_HAIKU);
    const main = t.agents.find((a) => a.parentId === undefined)!.id;
    const mainRequests = t.events.filter((e) => e.kind === 'request' && e.agentId === main).length;
    const sub = t.events.find(
      (e): e is TranscriptEvent & { kind: 'request' } => e.kind === 'request' && e.agentId !== main,
    )!;
    // The same session with its subagents' requests repeated until they outnumber the main lane's.
    const extra = Array.from({ length: mainRequests * 2 }, (_, i) => ({ ...sub, id: `${sub.id}-copy${i}` }));
    const facts = modelAndTime({ ...t, events: [...t.events, ...extra] });
    expect(facts.models.find((m) => m.model === sub.payload.model)!.requests).toBeGreaterThan(mainRequests);
    expect(facts.model).toBe('claude-opus-4-6');
  });

  it('counts active time from each prompt to the last record of its turn, below the wall-clock span', async () => {
    const t = await load(RESUMED_CODEX);
    const facts = modelAndTime(t);
    expect(facts.model).toBe('gpt-5.3-codex');
    expect(facts.reasoningTokens).toBeGreaterThan(0);
    // The records span more than a day; the resumptions' pauses are not time in turns.
    expect(facts.wallMs).toBeGreaterThan(24 * HOUR);
    expect(facts.activeMs).toBeGreaterThan(0);
    expect(facts.activeMs!).toBeLessThan(facts.wallMs! / 2);
    // Each turn is at least its own prompt-to-reply span: the sum is no less than theirs.
    const main = t.agents[0]!.id;
    let prompted: number | undefined;
    let replies = 0;
    for (const e of t.events) {
      if (e.timestamp === undefined) continue;
      if (isPrompt(e, main)) prompted = e.timestamp;
      else if (prompted !== undefined && e.kind === 'assistant') {
        replies += e.timestamp - prompted;
        prompted = undefined;
      }
    }
    expect(facts.activeMs!).toBeGreaterThanOrEqual(replies);
  });

  it('has no active time without a prompt, and no reasoning tokens where none are recorded', async () => {
    const t = await load(OPUS_WITH_HAIKU);
    const main = t.agents[0]!.id;
    const facts = modelAndTime({ ...t, events: t.events.filter((e) => !isPrompt(e, main)) });
    expect(facts.activeMs).toBeUndefined();
    expect(facts.wallMs).toBeGreaterThan(0);
    expect(facts.reasoningTokens).toBeUndefined();
  });

  it('keeps the same active time when records come in twice or lanes come in another order', async () => {
    const t = await load(OPUS_WITH_HAIKU);
    const main = t.agents.find((a) => a.parentId === undefined)!.id;
    const whole = modelAndTime(t).activeMs;
    expect(whole).toBeGreaterThan(0);
    // Subagents' records first, then the main lane's, each taken in twice.
    const clock = new TurnClock(main);
    const sub = t.events.filter((e) => e.agentId !== main);
    const own = t.events.filter((e) => e.agentId === main);
    for (const e of [...sub, ...own, ...own, ...sub]) clock.add(e);
    expect(clock.activeMs).toBe(whole);
    // A subagent's records fall inside the turn that started it: they never add a turn of their own.
    const mainOnly = new TurnClock(main);
    for (const e of own) mainOnly.add(e);
    expect(mainOnly.activeMs).toBeLessThanOrEqual(whole!);
  });
});
