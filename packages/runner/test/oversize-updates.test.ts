// What an agent sends that the ACP connection cannot take whole: a line over the SDK's size limit
// ends the session with that reason (not as an ordinary exit), and an update nested thousands of
// levels deep arrives bounded, with a marker where the depth was cut, instead of vanishing.
import { DEEP_VALUE_PLACEHOLDER, MAX_VALUE_DEPTH } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type Driven, drivenScriptedSession } from './support/driven.js';

let driven: Driven | undefined;
afterEach(async () => {
  await driven?.close();
  driven = undefined;
});

/** Levels of objects from `value` down to the first non-object. */
function depthOf(value: unknown): number {
  let depth = 0;
  let node = value;
  while (typeof node === 'object' && node !== null) {
    depth += 1;
    node = Object.values(node)[0];
  }
  return depth;
}

describe('an update over the line limit', () => {
  it('fails the turn and loses the session with the real cause', async () => {
    driven = drivenScriptedSession();
    const outcome = await driven.session.prompt('[[overlong]]');
    expect(outcome.status).toBe('failed');
    const message = outcome.status === 'failed' ? outcome.message : '';
    expect(message).toMatch(/longer than the 32 MiB one ACP message may take/);
    expect(message).not.toMatch(/exited \(code 0\)/);
    expect(driven.ends.at(-1)).toMatchObject({ status: 'failed', error: message });
    // The agent it can no longer talk to is ended, and its loss carries the same reason.
    for (let i = 0; i < 100 && driven.lost.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(driven.lost).toContain('agent_exited');
    const exited = driven.events.find((e) => e.eventName === 'agent_exited');
    expect(exited?.payload.reason).toBe(message);
  });
});

describe('an update nested 5,000 levels deep', () => {
  it('arrives and is journaled with everything below 100 levels replaced by a marker', async () => {
    driven = drivenScriptedSession();
    const outcome = await driven.session.prompt('[[deep:5000]]');
    expect(outcome).toMatchObject({ status: 'completed' });
    const names = driven.events.map((e) => e.eventName);
    expect(names).toEqual(['tool_call', 'agent_message_chunk']);
    const [stored] = driven.journal.read('ref-1', 0);
    const payload = (stored!.frame as { payload: Record<string, unknown> }).payload;
    expect(payload).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'deep' });
    // The update itself is level 1 and its rawInput level 2: objects go 100 levels down, then the marker.
    expect(depthOf(payload.rawInput) + 1).toBe(MAX_VALUE_DEPTH);
    expect(JSON.stringify(payload)).toContain(JSON.stringify(DEEP_VALUE_PLACEHOLDER));
    expect(driven.log.some((line) => line.includes(`deeper than ${MAX_VALUE_DEPTH} levels`))).toBe(true);
  });
});
