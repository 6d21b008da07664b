// A followed session's summary when earlier requests change after they were counted: a request's
// usage raised, gained or lost by a later record. The kept context shape follows each change, so the
// summary is foldTranscript's at every step.
import { describe, expect, it } from 'vitest';
import { foldTranscript, SummaryFold, type Transcript, type TranscriptEvent } from '../src/index.js';

const source: TranscriptEvent['source'] = { file: 'test.jsonl', offset: 0, length: 1, line: 1 };

function request(seq: number, agentId: string, inputTokens?: number): TranscriptEvent {
  return {
    id: `r${seq}`,
    seq,
    kind: 'request',
    agentId,
    timestamp: 1_000 + seq,
    source,
    payload:
      inputTokens === undefined ? { model: 'm' } : { model: 'm', usage: { inputTokens, outputTokens: 10 } },
  } as TranscriptEvent;
}

function transcript(events: TranscriptEvent[]): Transcript {
  return {
    agent: 'claude-code',
    agents: [{ id: 'main' }, { id: 'sub', parentId: 'main' }],
    capabilities: ['usage', 'requests', 'durations', 'subagents'],
    events,
    session: { id: 's' },
    skipped: [],
  };
}

describe('SummaryFold with requests changed after they were counted', () => {
  it('gives what a fold of the whole transcript gives after each change', () => {
    // More requests than the shape has points, so that the shape is downsampled.
    const events: TranscriptEvent[] = [];
    for (let i = 0; i < 300; i++)
      events.push(request(i, i % 5 === 0 ? 'sub' : 'main', i % 7 === 0 ? undefined : 100 + i));
    const t = transcript(events);
    const fold = new SummaryFold();
    fold.update(t, { rewritten: true, from: 0, added: [...events], updated: [], revised: [] });
    expect(fold.summary(t)).toEqual(foldTranscript(t, { prompts: true }));

    const usageOf = (e: TranscriptEvent) => (e.payload as { usage?: { inputTokens: number } }).usage;
    const changes: [string, (e: TranscriptEvent) => void][] = [
      [
        'raised',
        (e) => {
          usageOf(e)!.inputTokens = 90_000;
        },
      ],
      [
        'gained',
        (e) => {
          (e.payload as Record<string, unknown>).usage = { inputTokens: 70_000, outputTokens: 1 };
        },
      ],
      [
        'lost',
        (e) => {
          delete (e.payload as Record<string, unknown>).usage;
        },
      ],
    ];
    const targets: Record<string, number> = { raised: 41, gained: 49, lost: 143 };
    for (const [what, change] of changes) {
      const e = events[targets[what]!]!;
      change(e);
      // One more request comes with the change, as a push brings both.
      const next = request(events.length, 'main', 5_000);
      events.push(next);
      fold.update(t, {
        rewritten: false,
        from: events.length - 1,
        added: [next],
        updated: [e],
        revised: [e],
      });
      expect(fold.summary(t), what).toEqual(foldTranscript(t, { prompts: true }));
    }
  });
});
