// A followed session's first read goes in parts when it is long, so that the daemon answers others
// meanwhile (the open-session bench measures how long it keeps them waiting). Read in parts of a few
// kilobytes, every corpus session gives what one read of its files gives: the events, the items of
// every lane, their search documents, the summary and the listing facts.
import { foldTranscript, listSessions, type SessionHead } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { LiveTranscript } from '../src/live-transcript.js';
import { searchDocs } from '../src/search-docs.js';

async function corpusSessions(): Promise<SessionHead[]> {
  const heads: SessionHead[] = [];
  for await (const e of listSessions(corpusPlatform())) if (!('ref' in e)) heads.push(e);
  return heads;
}

const heads = corpus ? await corpusSessions() : [];
const PART = 16 * 1024;
const items = (live: LiveTranscript) =>
  JSON.stringify(live.lanes.map((l) => [l.agentId, l.classification.items, l.keys]));

describe.skipIf(!corpus)('a first read in parts', () => {
  it.each(heads.map((h) => [h.path.slice(h.path.lastIndexOf('/') + 1), h] as const))(
    'gives what one read gives for %s',
    async (_name, head) => {
      const inParts = new LiveTranscript(head.agent, PART);
      const inOne = new LiveTranscript(head.agent, Number.POSITIVE_INFINITY);
      const a = await inParts.read(corpusPlatform(), head.path);
      const b = await inOne.read(corpusPlatform(), head.path);
      if (!a.ok || !b.ok) throw new Error('the session did not read');
      expect(JSON.stringify(a.value.events)).toBe(JSON.stringify(b.value.events));
      expect(items(inParts)).toBe(items(inOne));
      expect(searchDocs(inParts.lanes)).toEqual(searchDocs(inOne.lanes));
      expect(inParts.summary(a.value)).toEqual(foldTranscript(b.value, { prompts: true }));
      expect(inParts.listing(a.value)).toEqual(inOne.listing(b.value));
      // A first read is fresh: nothing of it is an append to stream on its own.
      expect(inParts.delta).toBeUndefined();
    },
  );
});
