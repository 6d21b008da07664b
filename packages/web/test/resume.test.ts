// Where the web UI resumes a session stream after a reconnect, over the frames the protocol defines.
import { type SessionStreamFrame, STREAM_FRAME_FIXTURES } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { lastSeqAfter } from '../src/session/resume.js';

const F = STREAM_FRAME_FIXTURES;
const fold = (frames: readonly SessionStreamFrame[]): number | undefined =>
  frames.reduce<number | undefined>((last, f) => lastSeqAfter(last, f), undefined);

describe('the seq a reconnect resumes after', () => {
  it("is -1 after an empty session's history, so the first event is still sent", () => {
    expect(fold([{ ...F.SessionReadyFrame, history: [], seq: -1 }])).toBe(-1);
    expect(
      fold([
        { ...F.SessionReadyFrame, history: [], seq: -1 },
        { ...F.RunStateFrame, seq: -1 },
      ]),
    ).toBe(-1);
  });

  it('is the last event seen, whatever frame carried it', () => {
    expect(
      fold([
        { ...F.SessionReadyFrame, seq: 3 },
        { ...F.UserMessageAppendedFrame, seq: 4 },
        { ...F.MessageStartFrame, seq: 5 },
        { ...F.ToolCallFrame, seq: 7 },
        { ...F.RunStateFrame, seq: 7 },
      ]),
    ).toBe(7);
    expect(
      fold([
        { ...F.SessionReadyFrame, history: [], seq: -1 },
        { ...F.MessageStartFrame, seq: 0 },
      ]),
    ).toBe(0);
  });

  it("takes the seq of a replaced file's history, numbered past everything before it", () => {
    expect(
      fold([
        { ...F.SessionReadyFrame, seq: 7 },
        { ...F.TextDeltaFrame, seq: 8 },
        { ...F.SessionReadyFrame, history: [], seq: 9 },
      ]),
    ).toBe(9);
  });

  it('starts over with a history from a restarted server, which numbers from 0 again', () => {
    expect(
      fold([
        { ...F.SessionReadyStartFrame, seq: 40 },
        { ...F.HistoryChunkFrame, seq: 40 },
        { ...F.SessionReadyEndFrame, seq: 40 },
        { ...F.TextDeltaFrame, seq: 41 },
        { ...F.SessionReadyFrame, seq: 12 },
      ]),
    ).toBe(12);
  });
});
