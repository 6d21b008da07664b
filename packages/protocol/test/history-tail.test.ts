// A session stream subscribed for only the end of a long history, and the positions a windowed reader
// steps through: what the contract takes and what it refuses, naming the field.
import { describe, expect, it } from 'vitest';
import {
  HISTORY_TAIL_MAX,
  OP_FIXTURES,
  SessionStreamFrame,
  STREAM_FRAME_FIXTURES,
  TranscriptItemsReadResult,
  validate,
  validateRequest,
} from '../src/index.js';

const subscribe = OP_FIXTURES.topic_subscribe.request;
const read = OP_FIXTURES.transcript_items_read.request;

describe('subscribing to the end of a history', () => {
  it('takes the whole history, or a tail with a size under which the whole goes', () => {
    for (const history of [
      'all',
      { tail: 500 },
      { tail: 0 },
      { tail: HISTORY_TAIL_MAX },
      { tail: 500, whole_up_to: 1200 },
    ]) {
      expect(validateRequest({ ...subscribe, history }).ok, JSON.stringify(history)).toBe(true);
    }
    // Absent is the whole history, as before the argument was.
    expect(validateRequest(subscribe).ok).toBe(true);
  });

  it('refuses a history that is not one, naming where', () => {
    const refused: [unknown, string][] = [
      ['tail', '/history'],
      [{ tail: -1 }, '/history'],
      [{ tail: HISTORY_TAIL_MAX + 1 }, '/history'],
      [{ tail: 2.5 }, '/history'],
      [{ whole_up_to: 10 }, '/history'],
      [{ tail: 10, head: 10 }, '/history'],
      [{ tail: 10, whole_up_to: -3 }, '/history'],
    ];
    for (const [history, field] of refused) {
      const checked = validateRequest({ ...subscribe, history });
      expect(checked, JSON.stringify(history)).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
      if (!checked.ok) expect(checked.error.field?.startsWith(field), checked.error.field).toBe(true);
    }
  });

  it('carries a tail in a ready frame that says the history has more', () => {
    const ready = {
      ...STREAM_FRAME_FIXTURES.SessionReadyFrame,
      totalMessageCount: 20_000,
      loadedMessageCount: 1,
      hasEarlierMessages: true,
      history: [STREAM_FRAME_FIXTURES.SessionReadyFrame.history[1]],
    };
    expect(validate(SessionStreamFrame, ready).ok).toBe(true);
    expect(validate(SessionStreamFrame, { ...ready, loadedMessageCount: -1 }).ok).toBe(false);
  });
});

describe('positions of prompts and failures', () => {
  it('are asked by kind, each once, and answered as lists of positions', () => {
    expect(validateRequest({ ...read, positions_of: ['prompt', 'error'] }).ok).toBe(true);
    for (const positions_of of [[], ['prompt', 'prompt'], ['warning'], 'prompt']) {
      expect(validateRequest({ ...read, positions_of }), JSON.stringify(positions_of)).toMatchObject({
        ok: false,
        error: { code: 'invalid_args' },
      });
    }
    const reply = { items: [], types: [], total: 0, entries: {}, positions: { prompt: [0, 14], error: [] } };
    expect(validate(TranscriptItemsReadResult, reply).ok).toBe(true);
    expect(validate(TranscriptItemsReadResult, { ...reply, positions: { prompt: [-1] } }).ok).toBe(false);
  });
});
