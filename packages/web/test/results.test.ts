// Tool results in human form, from the items the library classifies on corpus sessions and from the
// records their results point to: failure reasons, Edit counts, Read bodies without line numbers.
import { readFileSync } from 'node:fs';
import type { TranscriptItem } from '@cairn/protocol';
import {
  classifyTranscript,
  listSessions,
  loadTranscript,
  parseJson,
  recordedResult,
} from '@cairn/transcript';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { diffLines } from '../src/timeline/diff.js';
import {
  editCounts,
  failureReason,
  itemBody,
  recordBody,
  searchQueries,
  unnumbered,
} from '../src/timeline/results.js';

type Fields = Record<string, unknown>;
const asItem = (f: Fields): TranscriptItem => f as unknown as TranscriptItem;

function recordOf(item: Fields): unknown {
  const source = item.source as { file: string; offset: number };
  const bytes = readFileSync(source.file).subarray(source.offset);
  const end = bytes.indexOf(10);
  return parseJson(bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8'));
}

describe('failure reasons and counts', () => {
  const call = asItem({
    uuid: 'c',
    type: 'tool:Bash',
    at: 0,
    role: 'use',
    tool_use_id: 't',
    command: 'git add x',
  });

  it('gives a failed command its exit code and the first line of its error output', () => {
    const result = asItem({
      uuid: 'r',
      type: 'tool:Bash',
      at: 0,
      role: 'result',
      parent_item: 'c',
      tool_use_id: 't',
      is_error: true,
      stderr: 'Exit code 1\nThe following paths are ignored:\npriv/static',
    });
    expect(failureReason(call, result)).toBe('exit 1 · The following paths are ignored:');
  });

  it("gives any other failure its error message, and a generic result's exit code when it has one", () => {
    const read = asItem({
      uuid: 'c',
      type: 'tool:Read',
      at: 0,
      role: 'use',
      tool_use_id: 't',
      file_path: '/x',
    });
    const failedRead = asItem({
      ...read,
      role: 'result',
      parent_item: 'c',
      is_error: true,
      error: 'File does not exist.',
    });
    expect(failureReason(read, failedRead)).toBe('File does not exist.');
    const exec = asItem({
      uuid: 'c',
      type: 'tool:exec_command',
      at: 0,
      role: 'use',
      tool_use_id: 't',
      input: { cmd: 'false' },
    });
    const failedExec = asItem({
      ...exec,
      role: 'result',
      parent_item: 'c',
      is_error: true,
      result: { output: 'boom\nmore', exit_code: 2 },
    });
    expect(failureReason(exec, failedExec)).toBe('exit 2 · boom');
    const silent = asItem({ ...read, role: 'result', parent_item: 'c', is_error: true });
    expect(failureReason(read, silent)).toBe('failed, with no reason recorded');
    // A result that did not fail has no reason.
    expect(
      failureReason(read, asItem({ ...read, role: 'result', parent_item: 'c', lines: 3 })),
    ).toBeUndefined();
  });

  it("counts an edit's lines on the diff drawn for it, for typed and generic edits alike", () => {
    const typed = asItem({
      uuid: 'c',
      type: 'tool:Edit',
      at: 0,
      role: 'use',
      tool_use_id: 't',
      file_path: '/x',
      old_lines: 7,
      new_lines: 8,
      removed_lines: 0,
      added_lines: 1,
    });
    expect(editCounts(typed)).toEqual({ removed: 0, added: 1 });
    const old_string = 'a\nb\nc';
    const new_string = 'a\nB\nc\nd';
    const generic = asItem({
      uuid: 'c',
      type: 'tool:replace',
      at: 0,
      role: 'use',
      tool_use_id: 't',
      input: { file_path: '/x', old_string, new_string },
    });
    const lines = diffLines(old_string, new_string);
    expect(editCounts(generic)).toEqual({
      removed: lines.filter((l) => l.op === '-').length,
      added: lines.filter((l) => l.op === '+').length,
    });
    expect(editCounts(generic)).toEqual({ removed: 1, added: 2 });
  });

  it("takes a Read's line numbers off its text and keeps where it started", () => {
    expect(unnumbered('    40→alpha\n    41→\tbeta\n')).toEqual({ text: 'alpha\n\tbeta', firstLine: 40 });
    expect(unnumbered('no numbers here')).toBeUndefined();
  });

  it("reads a generic result's JSON output as named fields, and a Codex search's queries", () => {
    const call = asItem({ uuid: 'c', type: 'tool:mcp', at: 0, role: 'use', tool_use_id: 't', input: {} });
    const body = itemBody(
      call,
      asItem({ ...call, role: 'result', parent_item: 'c', result: { output: '{"a":1,"b":"x"}' } }),
    );
    expect(body).toEqual({
      kind: 'fields',
      fields: [
        { name: 'a', value: 1 },
        { name: 'b', value: 'x' },
      ],
    });
    const search = asItem({
      uuid: 'c',
      type: 'tool:web_search',
      at: 0,
      role: 'use',
      tool_use_id: 't',
      input: { type: 'search', query: 'q1', queries: ['q1', 'q2'] },
    });
    expect(searchQueries(search)).toEqual(['q1', 'q2']);
  });
});

describe.skipIf(!corpus)('result bodies read back from corpus records', () => {
  const all: Fields[] = [];
  beforeAll(async () => {
    const platform = corpusPlatform();
    for await (const head of listSessions(platform)) {
      if ('ref' in head || head.agent !== 'claude-code') continue;
      const loaded = await loadTranscript(platform, { path: head.path, agent: head.agent });
      if (!loaded.ok) continue;
      const c = classifyTranscript(loaded.value);
      if (c.ok) all.push(...(c.value.items as Fields[]));
    }
  });

  it("shows every Read's file as code in its language, with as many lines as the result counted", () => {
    let checked = 0;
    for (const result of all) {
      if (result.type !== 'tool:Read' || result.role !== 'result' || result.is_error === true) continue;
      const call = all.find((i) => i.uuid === result.parent_item && i.type === 'tool:Read')!;
      const recorded = recordedResult(recordOf(result), String(result.tool_use_id));
      const body = recordBody(asItem(call), recorded!);
      expect(body?.kind, String(call.file_path)).toBe('code');
      if (body?.kind !== 'code') continue;
      const n = body.text.replace(/\n$/, '').split('\n').length;
      // The numbered lines the library counted are the file's lines shown (an empty file shows one).
      expect(Math.abs(n - Number(result.lines))).toBeLessThanOrEqual(1);
      if (String(call.file_path).endsWith('.ex')) expect(body.language).toBe('elixir');
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('lists the files a Glob found and the pages a web search found', () => {
    const globs = all.filter((i) => i.type === 'tool:Glob' && i.role === 'result' && i.is_error !== true);
    const glob = globs.find((g) => g.matches === 1)!;
    const call = all.find((i) => i.uuid === glob.parent_item)!;
    const files = recordBody(asItem(call), recordedResult(recordOf(glob), String(glob.tool_use_id))!);
    expect(files?.kind).toBe('files');
    if (files?.kind === 'files') expect(files.paths).toHaveLength(1);
    const search = all.find((i) => i.type === 'tool:WebSearch' && i.role === 'result')!;
    const searchCall = all.find((i) => i.uuid === search.parent_item)!;
    const body = recordBody(
      asItem(searchCall),
      recordedResult(recordOf(search), String(search.tool_use_id))!,
    );
    expect(body?.kind).toBe('links');
    if (body?.kind === 'links') {
      expect(body.links.length).toBeGreaterThan(3);
      for (const l of body.links) expect(l.url).toMatch(/^https?:\/\//);
    }
  });
});
