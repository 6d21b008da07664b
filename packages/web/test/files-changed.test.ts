// The files a session changed, gathered from corpus sessions of Claude Code, Codex and Gemini CLI: each
// file with its changes in the order they were made, each change pointing back at its call, and one
// combined diff per file.
import type { TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, listSessions, loadTranscript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import {
  type ChangedFile,
  combinedDiff,
  fileCounts,
  filesChanged,
  isFileChange,
  linesFromInput,
} from '../src/timeline/files-changed.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';

const CLAUDE = '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2';
const CODEX = '019a085e-04c1-7f81-a09e-9555f6a1fb40';
const GEMINI = '0b23371a-ce2e-4b1c-81a0-44af5d94d9ce';

/** Every corpus session's lanes as the items the library classifies, keyed by agent and session id. */
async function corpusLanes(): Promise<Map<string, Map<string, TranscriptItem[]>>> {
  const platform = corpusPlatform();
  const out = new Map<string, Map<string, TranscriptItem[]>>();
  for await (const entry of listSessions(platform)) {
    if ('ref' in entry) continue;
    const loaded = await loadTranscript(platform, {
      agent: entry.agent,
      path: entry.path,
      sessionId: entry.id,
    });
    if (!loaded.ok) continue;
    const lanes = new Map<string, TranscriptItem[]>();
    for (const lane of loaded.value.agents) {
      const own = lane.parentId === undefined;
      const read = classifyTranscript(loaded.value, own ? {} : { agentId: lane.id });
      if (read.ok) lanes.set(own ? MAIN_LANE : lane.id, read.value.items);
    }
    out.set(`${entry.agent}/${entry.id}`, lanes);
  }
  return out;
}

const byName = (files: ChangedFile[]) => new Map(files.map((f) => [f.path.split('/').at(-1)!, f]));

describe.skipIf(!corpus)('the files a corpus session changed', () => {
  it('lists a Claude Code session’s files in the order first changed, each change pointing at its call', async () => {
    const lanes = (await corpusLanes()).get(`claude-code/${CLAUDE}`)!;
    const files = filesChanged(lanes);
    expect(files.map((f) => f.path.split('/').at(-1))).toEqual(['index.html', 'styles.css', 'script.js']);
    const styles = byName(files).get('styles.css')!;
    expect(styles.changes.map((c) => c.tool)).toEqual(['Write', ...Array(11).fill('Edit')]);
    // Claude Code keeps an edit's counts on the item and its bodies in the record only.
    expect(styles.changes[0]).toMatchObject({ kind: 'write', added: 167, lines: undefined });
    expect(styles.changes[1]).toMatchObject({ kind: 'edit', removed: 0, added: 1, lines: undefined });
    const items = lanes.get(MAIN_LANE)!;
    const timeline = new Timeline();
    timeline.append(MAIN_LANE, items);
    let last = -1;
    for (const change of styles.changes) {
      expect(change.index).toBeGreaterThan(last);
      last = change.index;
      expect(items[change.index]).toBe(change.call);
      expect((change.call as { file_path?: string }).file_path).toBe(styles.path);
      // The link lands the timeline on the very call.
      expect(timeline.find(change.ref)).toEqual({ lane: MAIN_LANE, index: change.index });
    }
    // A Write over a file says nothing of what it removed, so the file's removed lines are unknown.
    expect(fileCounts(styles)).toEqual({ removed: undefined, added: 228 });
  });

  it('reads the before and after an edit’s record holds, as the view does once a file is opened', () => {
    const lines = linesFromInput('Edit', {
      file_path: 'a.css',
      old_string: 'a {\n}',
      new_string: 'a {\n  b: c;\n}',
    });
    expect(lines).toEqual([
      { op: ' ', text: 'a {' },
      { op: '+', text: '  b: c;' },
      { op: ' ', text: '}' },
    ]);
    expect(linesFromInput('Write', { content: 'one\ntwo' })).toEqual([
      { op: '+', text: 'one' },
      { op: '+', text: 'two' },
    ]);
    expect(
      linesFromInput('MultiEdit', {
        edits: [
          { old_string: 'x', new_string: 'y' },
          { old_string: 'p', new_string: 'q' },
        ],
      })?.map((l) => `${l.op}${l.text}`),
    ).toEqual(['-x', '+y', '-p', '+q']);
  });

  it('splits a Codex patch by file, with each file’s lines, and adds them up', async () => {
    const lanes = (await corpusLanes()).get(`codex/${CODEX}`)!;
    const files = byName(filesChanged(lanes));
    expect([...files.keys()]).toEqual(['index.html', 'styles.css', 'script.js']);
    const index = files.get('index.html')!;
    expect(index.changes.map((c) => c.kind)).toEqual(['add', 'update']);
    expect(index.changes[0]!.lines!.every((l) => l.op === '+')).toBe(true);
    expect(index.changes[0]!.lines).toHaveLength(27);
    const styles = files.get('styles.css')!;
    expect(styles.changes.map((c) => c.tool)).toEqual(Array(4).fill('apply_patch'));
    expect(fileCounts(styles)).toEqual({ removed: 18, added: 208 });
    // The combined diff holds every change's lines in order, each under its heading.
    const combined = combinedDiff(
      styles,
      (c) => c.lines,
      (c, n) => `${n}. ${c.tool} ${c.kind}`,
    );
    const headings = combined.filter((l) => l.op === '…').map((l) => l.text);
    expect(headings).toEqual([
      '1. apply_patch add',
      '2. apply_patch update',
      '3. apply_patch update',
      '4. apply_patch update',
    ]);
    expect(combined.filter((l) => l.op === '+')).toHaveLength(208);
    expect(combined.filter((l) => l.op === '-')).toHaveLength(18);
  });

  it('marks a Gemini CLI edit that failed, and leaves its lines out of the combined diff and the counts', async () => {
    const lanes = (await corpusLanes()).get(`gemini-cli/${GEMINI}`)!;
    const script = byName(filesChanged(lanes)).get('script.js')!;
    expect(script.changes.map((c) => `${c.tool}${c.failed ? ' failed' : ''}`)).toEqual([
      'write_file',
      'replace',
      'replace',
      'replace',
      'replace failed',
    ]);
    expect(fileCounts(script)).toEqual({ removed: 35, added: 136 });
    const combined = combinedDiff(
      script,
      (c) => c.lines,
      (c, n) => `${n}. ${c.tool}`,
    );
    expect(combined.filter((l) => l.op === '…').map((l) => l.text)).toEqual([
      '1. write_file',
      '2. replace',
      '3. replace',
      '4. replace',
      '5. replace · failed, not applied',
    ]);
    expect(combined.filter((l) => l.op === '+')).toHaveLength(136);
  });

  it('counts every edit call of every corpus session under some file', async () => {
    let calls = 0;
    for (const lanes of (await corpusLanes()).values()) {
      const files = filesChanged(lanes);
      const listed = new Set(files.flatMap((f) => f.changes.map((c) => c.call)));
      for (const items of lanes.values())
        for (const item of items) {
          if (!isFileChange(item)) continue;
          calls++;
          expect(listed.has(item), item.uuid).toBe(true);
        }
    }
    expect(calls).toBeGreaterThan(140);
  });
});
