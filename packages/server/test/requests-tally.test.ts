// The requests the usage reports count, kept from read to read (RequestsTally): after each kind of
// change a read may make (events added, moved from a point on, revised in place so that one counts
// now, counts otherwise or no longer counts, a read from the start) they are what a walk of the
// whole transcript gives.
import type { Transcript, TranscriptDelta, TranscriptEvent } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { RequestsTally, sessionRequests } from '../src/usage/session-requests.js';

const request = (id: string, at: number, output = 5): TranscriptEvent =>
  ({
    id,
    kind: 'request',
    timestamp: at,
    payload: { model: 'gpt-5', usage: { inputTokens: 10, outputTokens: output } },
  }) as unknown as TranscriptEvent;
const other = (id: string): TranscriptEvent =>
  ({ id, kind: 'message', payload: {} }) as unknown as TranscriptEvent;

const transcript = (events: TranscriptEvent[]) => ({ events }) as unknown as Transcript;
const delta = (from: number, updated: TranscriptEvent[] = [], rewritten = false): TranscriptDelta => ({
  rewritten,
  from,
  added: [],
  updated,
  revised: updated,
});

describe('requests kept from read to read', () => {
  it('are those of the whole transcript after every kind of change', () => {
    const tally = new RequestsTally();
    const check = (events: TranscriptEvent[], d: TranscriptDelta | undefined) => {
      const t = transcript(events);
      tally.update(t, d);
      expect(tally.requests()).toEqual(sessionRequests(t));
    };
    const events = [request('a', 1), other('m1'), request('b', 2), other('m2')];
    check(events, undefined);
    expect(tally.requests().length).toBe(2);
    // Appended.
    events.push(request('c', 3), other('m3'));
    check(events, delta(4));
    // Moved from a point on: the events from index 2 on are another order now.
    const moved = [...events.slice(0, 2), request('d', 4), ...events.slice(2)];
    check(moved, delta(2));
    // Revised in place before the read's new part: one counts otherwise, one no longer counts, a
    // message becomes a request.
    const revised = moved.map((e) => (e.id === 'a' ? request('a', 1, 50) : e));
    const b = revised.findIndex((e) => e.id === 'b');
    revised[b] = {
      ...revised[b]!,
      payload: { model: 'gpt-5', usage: { inputTokens: 0, outputTokens: 0 } },
    } as TranscriptEvent;
    const m1 = revised.findIndex((e) => e.id === 'm1');
    revised[m1] = request('m1', 1.5);
    revised.push(request('e', 6));
    check(revised, delta(revised.length - 1, [revised[0]!, revised[b]!, revised[m1]!]));
    expect(tally.requests().map((r) => r.at)).toEqual([1, 1.5, 4, 3, 6]);
    expect(tally.requests()[0]!.usage.outputTokens).toBe(50);
    // An event revised at or after the read's new part is taken with it, once.
    const tail = [...revised, request('f', 7)];
    check(tail, delta(tail.length - 1, [tail.at(-1)!]));
    // Read again from the start.
    check([request('z', 9)], delta(0, [], true));
    expect(tally.requests().map((r) => r.at)).toEqual([9]);
  });
});
