// A loop's line after Stop: the server ends the loop without a word of its own, and the line says
// it stopped rather than keeping its last iteration as if it still ran.
import { describe, expect, it } from 'vitest';
import { initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent, WireRunState } from '../src/chat/wire.js';

const runState = (generation: number, looping: boolean, streaming: boolean): WireRunState => ({
  runId: `run-${generation}`,
  generation,
  busy: streaming,
  phase: looping ? 'looping' : streaming ? 'streaming' : 'idle',
  flags: { streaming, retrying: false, compacting: false, looping, queued: false },
});

const frame = (runState: WireRunState): ServerEvent => ({ type: 'run_state', sessionId: 's1', runState });

describe('a loop stopped by the person', () => {
  it('ends as stopped once the run is no longer looping', () => {
    const events: ServerEvent[] = [
      frame(runState(1, true, false)),
      { type: 'loop_iteration', iteration: 1, maxIterations: 10, prompt: 'polish' },
      frame(runState(1, true, true)),
    ];
    let s = events.reduce(reduceChat, initialChatState('s1'));
    expect(s.loop).toEqual({ iteration: 1, maxIterations: 10 });
    s = reduceChat(s, frame(runState(1, false, true)));
    expect(s.loop).toEqual({ iteration: 1, maxIterations: 10, ended: 'stopped' });
    // A new loop starts afresh.
    s = reduceChat(s, { type: 'loop_iteration', iteration: 1, maxIterations: 3, prompt: 'again' });
    expect(s.loop).toEqual({ iteration: 1, maxIterations: 3 });
  });

  it('keeps a loop that ended on its own as it ended', () => {
    let s = [
      frame(runState(1, true, true)),
      { type: 'loop_iteration', iteration: 2, maxIterations: 5, prompt: 'p' } as ServerEvent,
      { type: 'loop_complete', iterations: 2 } as ServerEvent,
    ].reduce(reduceChat, initialChatState('s1'));
    s = reduceChat(s, frame(runState(1, false, false)));
    expect(s.loop).toEqual({ iteration: 2, maxIterations: 5, ended: 'done' });
  });
});
