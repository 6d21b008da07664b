// A long rollout's first read goes in parts, cut at line ends. A part that ended right after a user
// message would leave the translation to guess whether the next record mirrors it (a typed prompt)
// or not (injected context), and to classify the lane again when the guess was wrong. So the parts
// of a rollout never end after one: every part after the first only adds to what was read.
import { describe, expect, it } from 'vitest';
import { isUserMessageLine } from '../src/adapters/codex/part-cut.js';
import {
  findAdapter,
  IncrementalItems,
  lineParts,
  listSessions,
  readParts,
  type SessionAdapter,
  type SessionHead,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { openSession } from '../src/open.js';
import { partCut } from '../src/read.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';

const rollouts: SessionHead[] = [];
if (corpus)
  for await (const e of listSessions(corpusPlatform()))
    if (!('ref' in e) && e.agent === 'codex') rollouts.push(e);

/** Reads a rollout from disk in parts of `partBytes`: how many parts classified a lane again, and
 * how many parts ended after a user message. */
async function readInParts(
  head: SessionHead,
  partBytes: number,
  keepWithNext?: SessionAdapter['keepWithNext'],
) {
  const adapter = findAdapter('codex')!;
  const translator = new Translator(adapter);
  const items = new IncrementalItems();
  let reread = 0;
  let endsAfterMessage = 0;
  let parts = 0;
  const platform = corpusPlatform();
  for await (const part of readParts(platform, head.path, partBytes, undefined, undefined, keepWithNext)) {
    let pushed = parts === 0 ? translator.push([part]) : translator.pushTail([part]);
    let rewritten = false;
    if (pushed.ok && pushed.value === 'rewrite') {
      // A part that changes what earlier ones made (the file's first user_message, say) is read
      // with the rest from the start, as the daemon does; its lanes are read again for that.
      const end = part.start + part.data.length;
      pushed = translator.push([{ path: head.path, data: await platform.fs.readRange(head.path, 0, end) }]);
      rewritten = true;
    }
    if (!pushed.ok || pushed.value === 'rewrite') throw new Error(`${head.path}: part ${parts} not read`);
    const change = items.update(translator.snapshot(), pushed.value);
    if (parts > 0 && !rewritten && change.reread.size > 0) reread++;
    const data = part.data;
    const lastLine = data.subarray(data.lastIndexOf(10, data.length - 2) + 1);
    if (!part.last && isUserMessageLine(lastLine)) endsAfterMessage++;
    parts++;
  }
  return { reread, endsAfterMessage, parts, transcript: translator.snapshot() };
}

describe.skipIf(!corpus)('the parts of a rollout read in parts', () => {
  it('never end after a user message, so no part classifies a lane again; the events are a whole read', async () => {
    let parts = 0;
    let withoutTheRule = 0;
    for (const head of rollouts) {
      for (const partBytes of [2_048, 7_000]) {
        const read = await readInParts(head, partBytes, findAdapter('codex')!.keepWithNext);
        const where = `${head.path} in parts of ${partBytes} bytes`;
        expect(read.endsAfterMessage, where).toBe(0);
        expect(read.reread, where).toBe(0);
        const opened = await openSession(corpusPlatform(), { agent: 'codex', path: head.path });
        if (!opened.ok) throw new Error(opened.error.message);
        const whole = opened.value.adapter.translate(opened.value.files);
        if (!whole.ok) throw new Error(whole.error.message);
        expect(JSON.stringify(read.transcript.events), where).toBe(
          JSON.stringify(finishTranscript('codex', whole.value).events),
        );
        parts += read.parts;
        // Cut anywhere, some parts end after a user message, and some of those read a lane again.
        withoutTheRule += (await readInParts(head, partBytes)).reread;
      }
    }
    expect(parts).toBeGreaterThan(500);
    expect(withoutTheRule, 'parts that classify a lane again when cut anywhere').toBeGreaterThan(0);
  });

  it('held whole, a rollout is cut where it would be read from disk', async () => {
    const keep = findAdapter('codex')!.keepWithNext;
    for (const head of rollouts) {
      const opened = await openSession(corpusPlatform(), { agent: 'codex', path: head.path });
      if (!opened.ok) throw new Error(opened.error.message);
      const file = opened.value.files[0]!;
      const parts = lineParts(opened.value.files, 4_096, keep);
      for (const part of parts.slice(0, -1)) {
        const data = part[0]!.data;
        expect(data.length, head.path).toBe(partCut(file.data, data.length, keep));
        expect(isUserMessageLine(data.subarray(data.lastIndexOf(10, data.length - 2) + 1)), head.path).toBe(
          false,
        );
      }
    }
  });

  it('a part of lines that all keep with the next still ends after its last', () => {
    const line = '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user"}}\n';
    const data = new TextEncoder().encode(line.repeat(3));
    expect(partCut(data, data.length, isUserMessageLine)).toBe(data.length);
    expect(partCut(data, data.length - 1, isUserMessageLine)).toBe(2 * line.length);
    expect(partCut(data, data.length, () => false)).toBe(data.length);
  });
});
