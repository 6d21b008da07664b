// Items handed out as a session is read in parts wait for what can still change them, and where a
// later part changes one already handed out the answer is to read the session whole, never other items.
import type { TranscriptItem } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import type { TranscriptDelta } from '../src/incremental.js';
import { buildDump, selectionOf, type Transcript, type TranscriptEvent } from '../src/index.js';
import { SettledItems } from '../src/settled-items.js';

const START = Date.UTC(2026, 1, 1);
let line = 0;

function event(kind: TranscriptEvent['kind'], payload: Record<string, unknown>): TranscriptEvent {
  line++;
  return {
    id: `e${line}`,
    seq: 0,
    kind,
    agentId: 'main',
    timestamp: START + line,
    source: { file: 'session.jsonl', offset: line * 100, length: 100, line },
    payload,
  } as unknown as TranscriptEvent;
}

const call = (id: string) =>
  event('tool_call', { callId: id, name: 'Bash', input: { command: `echo ${id}` } });
const result = (id: string) => event('tool_result', { callId: id, output: `${id} done` });
const replies = (n: number) =>
  Array.from({ length: n }, (_, i) => event('assistant', { text: `reply ${i}` }));

const transcript = (events: TranscriptEvent[]): Transcript => ({
  agent: 'codex',
  agents: [{ id: 'main' }],
  capabilities: [],
  events,
  session: { id: 'main', startedAt: START },
  skipped: [],
});

const delta = (added: TranscriptEvent[], first: boolean): TranscriptDelta => ({
  rewritten: first,
  from: 0,
  added,
  updated: [],
  revised: [],
});

/** The events pushed in the given parts; the items handed out, or 'whole'. */
function takeInParts(parts: TranscriptEvent[][]): TranscriptItem[] | 'whole' {
  const all: TranscriptEvent[] = [];
  const settled = new SettledItems(selectionOf(['tool', 'message']));
  const out: TranscriptItem[] = [];
  for (const [i, part] of parts.entries()) {
    all.push(...part);
    all.forEach((e, seq) => {
      e.seq = seq;
    });
    const got = settled.take(transcript(all), delta(part, i === 0), i === parts.length - 1);
    if (got === 'whole') return 'whole';
    out.push(...got.map((s) => s.item));
  }
  return out;
}

function wholeRead(parts: TranscriptEvent[][]): TranscriptItem[] {
  const built = buildDump(
    transcript(parts.flat()),
    { sid: 'main', types: ['tool', 'message'] },
    { presets: [], writtenAt: START },
  );
  if (!built.ok) throw new Error(built.error.message);
  return built.value.file.items;
}

describe('items settled a part at a time', () => {
  it('a call waits for its result in a later part, and the items after it wait behind it', () => {
    const parts = [[call('a'), ...replies(300)], [...replies(300), result('a'), ...replies(10)], replies(5)];
    const got = takeInParts(parts);
    expect(got).not.toBe('whole');
    expect(JSON.stringify(got)).toBe(JSON.stringify(wholeRead(parts)));
    const use = (got as TranscriptItem[]).find((i) => i.type === 'tool:Bash') as { result_item?: string };
    expect(use.result_item).toBe(
      (got as TranscriptItem[]).find((i) => (i as { role?: string }).role === 'result')?.uuid,
    );
  });

  it('a call that is never answered goes out after a while without naming a result', () => {
    const parts = [[call('b'), ...replies(3000)], replies(3000), replies(10)];
    const got = takeInParts(parts);
    expect(JSON.stringify(got)).toBe(JSON.stringify(wholeRead(parts)));
  });

  it('a call answered after it went out unanswered makes the read whole', () => {
    const parts = [[call('c'), ...replies(3000)], replies(3000), [result('c')]];
    expect(takeInParts(parts)).toBe('whole');
  });

  it('keeps the latest answered calls only: naming a forgotten one makes the read whole', () => {
    const answered = Array.from({ length: 3000 }, (_, i) => [call(`k${i}`), result(`k${i}`)]).flat();
    // A second result for a call thousands of calls back: the classifier no longer has that call.
    const late = [answered, [...replies(300), result('k0')], replies(5)];
    expect(takeInParts(late)).toBe('whole');
    // One for a call among the latest is read as a whole read reads it.
    const recent = [answered, [...replies(300), result('k2990')], replies(5)];
    const got = takeInParts(recent);
    expect(got).not.toBe('whole');
    expect(JSON.stringify(got)).toBe(JSON.stringify(wholeRead(recent)));
  });
});
