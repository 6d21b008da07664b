// `cairn show` writes its lines a batch at a time: the output is, byte for byte, every event's (or
// every selected item's) line joined as one text, for every corpus session.
import { describe, expect, it } from 'vitest';
import { buildDump } from '../../transcript/src/index.js';
import { corpus } from '../../transcript/test/corpus.js';
import { describeEvent } from '../src/describe.js';
import { describeItem } from '../src/describe-item.js';
import { cairn, corpusEnv, corpusTranscripts } from './run.js';

const joined = (lines: string[]): string => (lines.length > 0 ? `${lines.join('\n')}\n` : '');

describe.skipIf(!corpus)('cairn show output', () => {
  it('is every line joined, for events, events as JSON and a selection of items', async () => {
    const env = corpusEnv();
    let sessions = 0;
    for await (const { t, id, agent, ref } of corpusTranscripts(env)) {
      sessions++;
      const lines = t.events.map((e) => describeEvent(t, e, 160));
      if (t.skipped.length > 0) lines.push(`(${t.skipped.length} records produced no event)`);
      const text = cairn(['show', ...ref], env);
      expect(text.status, text.stderr).toBe(0);
      expect(text.stdout === joined(lines), `${agent} ${id}`).toBe(true);

      const json = cairn(['show', ...ref, '--json'], env);
      expect(json.stdout === joined(t.events.map((e) => JSON.stringify(e))), `${id} --json`).toBe(true);

      const types = 'message,tool,-thinking';
      const built = buildDump(t, { sid: id, types: types.split(',') }, { presets: [], writtenAt: 0 });
      if (!built.ok) throw new Error(built.error.message);
      const items = cairn(['show', ...ref, '--types', types], env);
      expect(items.status, items.stderr).toBe(0);
      expect(
        items.stdout === joined(built.value.file.items.map((item) => describeItem(item, 160))),
        `${id} --types`,
      ).toBe(true);
    }
    expect(sessions).toBeGreaterThan(5);
  }, 300_000);
});
