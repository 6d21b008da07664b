// Codex writes a typed prompt twice: the message, then its user_message right after. A read that
// ends between the two takes the message for the prompt it is, so the next read only adds to what
// was read: no event read anew, no lane classified again. A user message that the next record does
// not mirror is read anew as injected context, as a whole read reads it.
import { describe, expect, it } from 'vitest';
import { injectedOrigin, messageText } from '../src/adapters/codex/content.js';
import {
  classifyTranscript,
  foldTranscript,
  IncrementalItems,
  listSessions,
  type SessionHead,
  type SourceFile,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { openSession } from '../src/open.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';

interface Rec {
  type?: string;
  payload?: { type?: string; role?: string; content?: unknown };
}

/** A user message that a user_message may mirror: one whose text does not tell injected context. */
const isMessage = (r: Rec | undefined): boolean =>
  r?.type === 'response_item' &&
  r.payload?.type === 'message' &&
  r.payload.role === 'user' &&
  injectedOrigin(messageText(r.payload.content).text) === undefined;
const isUserMessage = (r: Rec | undefined): boolean =>
  r?.type === 'event_msg' && r.payload?.type === 'user_message';

/** The byte offset after each line, and each line's record (undefined when it is no JSON). */
function linesOf(file: SourceFile): { end: number; rec: Rec | undefined }[] {
  const out: { end: number; rec: Rec | undefined }[] = [];
  let start = 0;
  while (start < file.data.length) {
    const nl = file.data.indexOf(10, start);
    const end = nl === -1 ? file.data.length : nl + 1;
    let rec: Rec | undefined;
    try {
      rec = JSON.parse(Buffer.from(file.data.subarray(start, end)).toString('utf8')) as Rec;
    } catch {
      rec = undefined;
    }
    out.push({ end, rec });
    start = end;
  }
  return out;
}

const rollouts: SessionHead[] = [];
if (corpus)
  for await (const e of listSessions(corpusPlatform()))
    if (!('ref' in e) && e.agent === 'codex') rollouts.push(e);

describe.skipIf(!corpus)('a Codex prompt whose two records come in two reads', () => {
  it('reads on from the message to its user_message, reading nothing anew', async () => {
    let pairs = 0;
    let unprompted = 0;
    for (const head of rollouts) {
      const opened = await openSession(corpusPlatform(), { agent: 'codex', path: head.path });
      if (!opened.ok) throw new Error(opened.error.message);
      const { adapter, files } = opened.value;
      const file = files[0]!;
      const lines = linesOf(file);
      let sawUserMessage = false;
      for (const [i, line] of lines.entries()) {
        const after = sawUserMessage;
        sawUserMessage ||= isUserMessage(line.rec);
        if (!isMessage(line.rec) || i + 1 >= lines.length || isUserMessage(lines[i - 1]?.rec)) continue;
        // The file's first user_message makes the messages before it injected context: a rewrite.
        const mirrored = after && isUserMessage(lines[i + 1]!.rec);
        const translator = new Translator(adapter);
        const items = new IncrementalItems();
        for (const end of [line.end, lines[i + 1]!.end]) {
          const now = [{ ...file, data: file.data.subarray(0, end) }];
          const pushed = translator.push(now);
          if (!pushed.ok) throw new Error(pushed.error.message);
          const t = translator.snapshot();
          const change = items.update(t, pushed.value);
          const where = `${head.path} line ${i + 1}, cut at byte ${end}`;
          if (end === line.end) {
            // The message last in the read is taken for a prompt.
            const last = t.events.findLast((e) => e.kind === 'user');
            expect(last?.kind === 'user' && last.payload.origin, where).toBeUndefined();
          } else if (mirrored) {
            expect(pushed.value.rewritten, where).toBe(false);
            expect(pushed.value.revised, where).toEqual([]);
            expect([...change.reread], where).toEqual([]);
          } else if (pushed.value.revised.length > 0) {
            // Not mirrored, after the file's first user_message: the message is read anew as
            // injected context (before it every message is a prompt).
            expect(
              pushed.value.revised.map((e) => e.kind === 'user' && e.payload.origin),
              where,
            ).toEqual(['injected']);
            unprompted++;
          }
          const once = adapter.translate(now);
          if (!once.ok) throw new Error(once.error.message);
          const whole = finishTranscript(adapter.id, once.value);
          expect(JSON.stringify(t.events), where).toBe(JSON.stringify(whole.events));
          // The summary pass, which reads the file a line at a time, counts the same prompts.
          const summary = adapter.summarize!(now);
          if (!summary.ok) throw new Error(summary.error.message);
          expect(summary.value, where).toEqual(foldTranscript(whole, { prompts: true }));
          const classified = classifyTranscript(whole);
          if (!classified.ok) throw new Error(classified.error.message);
          expect(JSON.stringify(items.all(t)[0]!.classification.items), where).toBe(
            JSON.stringify(classified.value.items),
          );
        }
        if (mirrored) pairs++;
      }
    }
    expect(pairs, 'prompts typed in the corpus rollouts').toBeGreaterThan(10);
    expect(unprompted, 'user messages read anew as injected context').toBeGreaterThan(0);
  });
});
