// A list row names the main lane's model, however many requests the subagents made on another,
// and the time spent in turns beside the wall-clock span.
import { loadTranscript, modelAndTime, nodePlatform, type Transcript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { laneItems } from '../src/indexing/search-docs.js';
import { listingFacts } from '../src/reader/listing.js';

// Its main agent ran Opus; its subagents ran Haiku.
const PATH = corpusPath('claude/projects/-work-spotter', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');

describe.skipIf(!corpus)("a session's listed model", () => {
  it('is the main lane model even when subagents made more requests on another', async () => {
    const loaded = await loadTranscript(nodePlatform({ env: {} }), { path: PATH });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const t = loaded.value;
    expect(listingFacts('claude-code', t, laneItems(t)).model).toBe('claude-opus-4-6');

    const main = t.agents.find((a) => a.parentId === undefined)!.id;
    const requests = t.events.filter((e) => e.kind === 'request');
    const onMain = requests.filter((e) => e.agentId === main).length;
    const sub = requests.find((e) => e.agentId !== main)!;
    // The same session with its subagents' requests repeated until they outnumber the main lane's.
    const extra = Array.from({ length: onMain * 2 }, (_, i) => ({ ...sub, id: `${sub.id}-copy${i}` }));
    const busier: Transcript = { ...t, events: [...t.events, ...extra] };
    expect(listingFacts('claude-code', busier, laneItems(busier)).model).toBe('claude-opus-4-6');
  });
});

describe.skipIf(!corpus)("a session's listed active time", () => {
  it('is the time in turns the library counts, well below the wall-clock span of a resumed session', async () => {
    const path = corpusPath(
      'codex/sessions/2026/02/23',
      'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    );
    const loaded = await loadTranscript(nodePlatform({ env: {} }), { path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const t = loaded.value;
    const facts = listingFacts('codex', t, laneItems(t));
    const library = modelAndTime(t);
    expect(facts.activeMs).toBe(library.activeMs);
    expect(facts.activeMs).toBeGreaterThan(0);
    expect(facts.activeMs!).toBeLessThan(library.wallMs! / 2);
  });
});
