// What a reader of items learns about a call without opening its record, on real sessions: a failure's
// reason, an edit's changed lines as its diff counts them, the hooks that ran around each call; and the
// result body read back from the record a result item points to.
import { readFileSync } from 'node:fs';
import { TranscriptItem, validate } from '@cairn/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  classifyTranscript,
  diffCounts,
  diffLines,
  failureText,
  loadTranscript,
  parseJson,
  recordedResult,
  selectItems,
  selectionOf,
} from '../../src/index.js';
import { corpus, corpusPath } from '../corpus.js';
import { corpusPlatform } from '../homes.js';

type Fields = Record<string, unknown>;

const SPOTTER = corpusPath('claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const SPOTTER_DOV = corpusPath('claude/projects/-work-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
const TOOL_HEAVY = corpusPath('claude/projects/-work-spotter/tool_heavy.jsonl');
const POMODORO = corpusPath(
  'claude/projects/-Users-yoavfarhi-dev-pomodoro-claude/36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl',
);

async function itemsOf(path: string, agentId?: string): Promise<Fields[]> {
  const loaded = await loadTranscript(corpusPlatform(), { path, agent: 'claude-code' });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const c = classifyTranscript(loaded.value, agentId === undefined ? {} : { agentId });
  if (!c.ok) throw new Error(c.error.message);
  return c.value.items as Fields[];
}

/** The record an item points to, parsed. */
function recordOf(item: Fields): unknown {
  const source = item.source as { file: string; offset: number; length: number };
  const bytes = readFileSync(source.file).subarray(source.offset);
  const end = bytes.indexOf(10);
  return parseJson(bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8'));
}

describe.skipIf(!corpus)('tool calls as items', () => {
  let spotter: Fields[];
  let dovAgent: Fields[];
  let pomodoro: Fields[];
  let toolHeavy: Fields[];
  beforeAll(async () => {
    [spotter, dovAgent, pomodoro, toolHeavy] = await Promise.all([
      itemsOf(SPOTTER),
      itemsOf(SPOTTER_DOV, 'a2898e3'),
      itemsOf(POMODORO),
      itemsOf(TOOL_HEAVY),
    ]);
  });

  it('gives a failed Read the reason the agent was told, without the tag around it', () => {
    const failed = dovAgent.find((i) => i.type === 'tool:Read' && i.role === 'result' && i.is_error === true);
    expect(failed?.error).toBe('File does not exist.');
    expect(failureText('<tool_use_error>String to replace not found in file.</tool_use_error>')).toBe(
      'String to replace not found in file.',
    );
    // A result that did not fail carries no reason.
    for (const i of spotter)
      if (i.role === 'result' && i.is_error !== true && i.ok !== false) expect(i.error).toBeUndefined();
  });

  it("counts an Edit's removed and added lines as its diff does, not the lengths of its two sides", () => {
    const edits = pomodoro.filter((i) => i.type === 'tool:Edit' && i.role === 'use');
    expect(edits.length).toBeGreaterThan(5);
    const first = edits[0]!;
    // Seven lines became eight: one line was added, none removed.
    expect([first.old_lines, first.new_lines]).toEqual([7, 8]);
    expect([first.removed_lines, first.added_lines]).toEqual([0, 1]);
    for (const edit of edits) {
      const record = recordOf(edit) as { message: { content: Fields[] } };
      const input = record.message.content.find((b) => b.id === edit.tool_use_id)?.input as Fields;
      const counts = diffCounts(diffLines(String(input.old_string), String(input.new_string)));
      expect([edit.removed_lines, edit.added_lines]).toEqual([counts.removed, counts.added]);
    }
  });

  it('counts the matches of a Grep in every output mode: files named, matching lines, none', () => {
    const greps = spotter
      .concat(dovAgent, toolHeavy)
      .filter((i) => i.type === 'tool:Grep' && i.role === 'result' && i.is_error !== true);
    expect(greps.length).toBeGreaterThan(5);
    for (const g of greps) expect(Number.isInteger(g.matches), JSON.stringify(g)).toBe(true);
    const byText = (m: number) => greps.some((g) => g.matches === m);
    expect(byText(0)).toBe(true);
  });

  it('keeps every hook that ran around a tool call as a hook item tied to that call', () => {
    const calls = new Set(spotter.filter((i) => i.role === 'use').map((i) => i.tool_use_id));
    const hooks = spotter.filter((i) => String(i.type).startsWith('hook:') && i.tool_use_id !== undefined);
    const aroundCalls = hooks.filter((h) => calls.has(h.tool_use_id));
    // 428 PreToolUse, 685 PostToolUse and 14 PostToolUseFailure progress records in the file.
    expect(aroundCalls).toHaveLength(428 + 685 + 14);
    // Those that only started are runs of their event like any other, `hook:<Event>`, saying
    // `status: 'started'` and stating no outcome, since none was recorded.
    const bash = aroundCalls.find((h) => h.type === 'hook:PreToolUse' && h.status === 'started');
    expect(bash).toBeDefined();
    expect(bash).not.toHaveProperty('outcome');
    expect(String(bash?.hook_name)).toMatch(/^PreToolUse:/);
    expect(typeof bash?.command).toBe('string');
    for (const h of aroundCalls) {
      expect(h.type).toBe(`hook:${String(h.hook_name).split(':')[0]}`);
      expect(h.status === 'started', JSON.stringify(h)).toBe(h.outcome === undefined);
    }
    expect(spotter.some((i) => i.type === 'hook:started')).toBe(false);
    expect(
      spotter.filter((i) => i.type === 'hook:PostToolUseFailure' && i.status === 'started'),
    ).toHaveLength(14);
  });

  it('selects every run of an event by its type, whether or not its outcome was recorded', () => {
    const sel = selectionOf(['hook:PreToolUse', 'hook:PostToolUse', 'hook:PostToolUseFailure']);
    const runs = spotter.filter((i) => String(i.type).startsWith('hook:') && i.tool_use_id !== undefined);
    const kept = selectItems(runs as { type: string }[], sel).items;
    expect(kept).toHaveLength(428 + 685 + 14);
    expect(selectItems(runs as { type: string }[], selectionOf(['hook:PreToolUse'])).items).toHaveLength(428);
    for (const item of spotter.filter((i) => String(i.type).startsWith('hook:')))
      expect(validate(TranscriptItem, item).ok, JSON.stringify(item)).toBe(true);
  });

  it("reads a result's body back from its record: a Read's file, a Glob's names, a failure's text", () => {
    const read = pomodoro.find((i) => i.type === 'tool:Read' && i.role === 'result')!;
    const body = recordedResult(recordOf(read), String(read.tool_use_id));
    const file = body?.structured?.file as Fields;
    expect(String(file.content)).toMatch(/^\* \{\n {4}margin: 0;/);
    expect(body?.text).toContain('     1→* {');
    const glob = toolHeavy.find((i) => i.type === 'tool:Glob' && i.role === 'result' && i.matches === 1)!;
    expect(recordedResult(recordOf(glob), String(glob.tool_use_id))?.structured?.filenames).toEqual([
      '/home/marco/projects/spotter/assets/js/app.js',
    ]);
    const failed = dovAgent.find((i) => i.type === 'tool:Read' && i.is_error === true)!;
    expect(recordedResult(recordOf(failed), String(failed.tool_use_id))).toMatchObject({
      isError: true,
      text: '<tool_use_error>File does not exist.</tool_use_error>',
    });
    // Another call's id finds nothing in the record.
    expect(recordedResult(recordOf(read), 'toolu_other')).toBeUndefined();
  });
});
