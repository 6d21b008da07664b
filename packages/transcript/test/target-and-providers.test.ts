// The target and the options as the agent-kit contract types them: `providers` takes `Provider`s,
// a `sessionId` that is no session id hands the choice of adapter to detection, and
// `promptSnapshot` picks out a prompt snapshot's payload.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type LoadTranscriptOptions,
  loadTranscript,
  type Provider,
  promptSnapshot,
  type SessionAdapter,
  type SummarizeSessionOptions,
  summarizeSession,
  type TranscriptEvent,
} from '../src/index.js';
import { tempHome, tempPlatform } from './homes.js';

const decoder = new TextDecoder();

/** A provider for files that start with `marker`; its transcript's session is titled with its id. */
function provider(id: string, marker: string): Provider {
  return {
    id,
    aliases: [],
    capabilities: [],
    homes: () => [],
    detect: (_path, head) => decoder.decode(head).startsWith(marker),
    async *list() {},
    sessionFiles: async (_ctx, path) => ({ ok: true, value: [path] }),
    translate: () => ({
      ok: true,
      value: {
        agents: [{ id: 'main' }],
        capabilities: [],
        events: [],
        session: { id: 's', title: id },
        skipped: [],
      },
    }),
  };
}

const home = tempHome();
const platform = tempPlatform(home);
const path = join(home, 'session.log');
writeFileSync(path, 'FAKE session\n');
const providers = [provider('fake', 'FAKE'), provider('other', 'NEVER')];

describe('the target and the providers', () => {
  it('types `providers` as the contract’s Provider, the adapter under another name', () => {
    expectTypeOf<Provider>().toEqualTypeOf<SessionAdapter>();
    expectTypeOf<NonNullable<LoadTranscriptOptions['providers']>>().toEqualTypeOf<readonly Provider[]>();
    expectTypeOf<NonNullable<SummarizeSessionOptions['providers']>>().toEqualTypeOf<readonly Provider[]>();
  });

  it('takes the named agent when the session id parses, or when none is given', async () => {
    for (const target of [
      { path, agent: 'other' },
      { path, agent: 'other', sessionId: '0f3c9a2e-5d1b-4c7e-9a8f-1b2c3d4e5f60' },
    ]) {
      const loaded = await loadTranscript(platform, target, { providers });
      expect(loaded.ok && loaded.value.agent).toBe('other');
    }
    const unknown = await loadTranscript(
      platform,
      { path, agent: 'nobody', sessionId: 'abc' },
      { providers },
    );
    expect(!unknown.ok && unknown.error._tag).toBe('CapabilityUnsupported');
  });

  it('lets every adapter’s detection decide when the session id does not parse', async () => {
    for (const sessionId of ['', '../escape', 'has space', 'x'.repeat(201), '-leading-dash']) {
      const named = await loadTranscript(platform, { path, agent: 'other', sessionId }, { providers });
      expect(named.ok && named.value.agent, sessionId).toBe('fake');
      // Even an agent no adapter answers to is then no failure: detection found one.
      const unknown = await loadTranscript(platform, { path, agent: 'nobody', sessionId }, { providers });
      expect(unknown.ok && unknown.value.agent, sessionId).toBe('fake');
    }
    const summary = await summarizeSession(
      platform,
      { path, agent: 'nobody', sessionId: 'a b' },
      { providers },
    );
    expect(summary.ok).toBe(true);
  });

  it('reads a prompt snapshot’s payload from its event, and nothing from any other', () => {
    const source = { file: path, offset: 0, length: 1, line: 1 };
    const snapshot: TranscriptEvent = {
      id: 'e1',
      seq: 0,
      kind: 'system',
      agentId: 'main',
      source,
      payload: { type: 'prompt_snapshot', systemPrompt: 'be brief', tools: [{ name: 'Bash' }] },
    };
    const other: TranscriptEvent = {
      ...snapshot,
      id: 'e2',
      payload: { type: 'turn_duration', durationMs: 5 },
    };
    const user: TranscriptEvent = {
      id: 'e3',
      seq: 2,
      kind: 'user',
      agentId: 'main',
      source,
      payload: { text: 'hi' },
    };
    expect(promptSnapshot(snapshot)).toEqual({
      type: 'prompt_snapshot',
      systemPrompt: 'be brief',
      tools: [{ name: 'Bash' }],
    });
    expect(promptSnapshot(other)).toBeUndefined();
    expect(promptSnapshot(user)).toBeUndefined();
  });
});
