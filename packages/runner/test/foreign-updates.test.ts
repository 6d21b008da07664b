// An agent speaks for the one session it was given: an update or a permission request naming
// another session id is refused and logged, never shown as part of the open session's reply.
import { afterEach, describe, expect, it } from 'vitest';
import { type Driven, drivenScriptedSession } from './support/driven.js';

let driven: Driven | undefined;
afterEach(async () => {
  await driven?.close();
  driven = undefined;
});

describe('updates for another session', () => {
  it('are refused and logged; the session keeps only its own', async () => {
    driven = drivenScriptedSession();
    const outcome = await driven.session.prompt('[[foreign]]');
    expect(outcome).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    const texts = driven.events
      .filter((e) => e.eventName === 'agent_message_chunk')
      .map((e) => (e.payload.content as { text: string }).text);
    // A permission asked for another session is answered cancelled and never shown.
    expect(texts).toEqual(['own text, foreign permission cancelled']);
    expect(driven.events.map((e) => e.eventName)).toEqual(['agent_message_chunk']);
    const own = driven.session.nativeSessionId!;
    const refused = driven.log.filter((line) => line.includes('refused'));
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatch(/refused an update \(agent_message_chunk\)/);
    expect(refused[1]).toMatch(/refused a permission request/);
    for (const line of refused) expect(line).toContain(`"${own}-elsewhere"`);
    // Nothing of it reached the journal either.
    const stored = driven.journal.read('ref-1', 0).map((e) => JSON.stringify(e.frame));
    expect(stored.some((frame) => frame.includes('foreign text'))).toBe(false);
  });
});
