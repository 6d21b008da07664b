// A stream's live frame builder learns a long transcript's events a slice at a time, and the events
// appended meanwhile as they come, so it may learn them in any order: whatever the order, it frames
// every event as a builder that learned them all at once in transcript order does: each reply closes
// at its request's last output. Corpus sessions are learned backwards, in reverse slices and
// interleaved, and framed.
import { loadTranscript, type Transcript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { laneItems } from '../src/indexing/search-docs.js';
import { FrameBuilder, itemsByEvent, type StreamFrame } from '../src/streams/frames.js';

const SESSIONS = [
  ['claude-code', 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'],
  [
    'codex',
    'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  ],
] as const;

async function load(agent: string, at: string): Promise<Transcript> {
  const loaded = await loadTranscript(corpusPlatform(), { agent, path: corpusPath(at) });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

/** Each event's frames, in transcript order. */
const framesOf = (t: Transcript, builder: FrameBuilder): StreamFrame[][] =>
  t.events.map((e, i) => builder.frames(e, i));

describe.skipIf(!corpus)('the live frame builder learning events out of order', () => {
  it.each(SESSIONS)(
    '%s: reverse slices and interleaved events frame as one learning in order',
    async (agent, at) => {
      const t = await load(agent, at);
      // A reply closes at its request's last output once the request has ended; the corpus's
      // records rarely say so, so here every request has.
      for (const e of t.events) if (e.kind === 'request') e.payload.stopReason ??= 'end_turn';
      const items = itemsByEvent(laneItems(t));
      const want = framesOf(t, new FrameBuilder(t, 'sid', items));
      const closedAtOutput = want.filter((frames, i) => {
        const e = t.events[i]!;
        return (
          e.kind !== 'request' && e.requestId !== undefined && frames.some((f) => f.type === 'message_end')
        );
      });
      expect(closedAtOutput.length).toBeGreaterThan(10);

      const reversed = new FrameBuilder(t, 'sid', items, false);
      const slice = 500;
      for (let end = t.events.length; end > 0; end -= slice)
        reversed.extend(t, t.events.slice(Math.max(0, end - slice), end));
      expect(framesOf(t, reversed)).toEqual(want);

      const backwards = new FrameBuilder(t, 'sid', items, false);
      backwards.extend(t, [...t.events].reverse());
      expect(framesOf(t, backwards)).toEqual(want);

      const interleaved = new FrameBuilder(t, 'sid', items, false);
      const odd = t.events.filter((_, i) => i % 2 === 1);
      const even = t.events.filter((_, i) => i % 2 === 0);
      interleaved.extend(t, odd.reverse());
      interleaved.extend(t, even);
      expect(framesOf(t, interleaved)).toEqual(want);

      // Learning nothing is not the same: the check above can fail.
      expect(framesOf(t, new FrameBuilder(t, 'sid', items, false))).not.toEqual(want);
    },
  );
});
