// The pure parts of the reader's structured tools and images: an MCP tool's name split into server and
// tool, a plan's decision, questions with their answers (quotes inside them included), JSON results,
// and the one rule that decides which recorded bytes become a `data:` URL a page may draw.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, loadTranscript, parseJson } from '@cairn/transcript';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempHome, tempPlatform } from '../../transcript/test/homes.js';
import {
  ANSWER,
  QUESTION,
  type StructuredSession,
  writeStructuredSession,
} from '../../transcript/test/support/structured-session.js';
import {
  imageDataUrl,
  MAX_SHOWN_IMAGE_BYTES,
  promptImageNotes,
  promptImagesIn,
  resultImagesIn,
  resultParts,
} from '../src/timeline/images.js';
import {
  answersOf,
  isChosen,
  mcpName,
  planDecision,
  planText,
  questionsOf,
  resultJson,
  resultOutputText,
} from '../src/timeline/structured-tools.js';

type Fields = Record<string, unknown>;
const item = (fields: Fields): TranscriptItem =>
  ({ uuid: 'u', at: 0, ...fields }) as unknown as TranscriptItem;

describe('MCP tool names', () => {
  it('split into server and tool at the first double underscore after the prefix', () => {
    expect(mcpName('mcp__playwright__browser_take_screenshot')).toEqual({
      server: 'playwright',
      tool: 'browser_take_screenshot',
    });
    expect(mcpName('mcp__supabase_right_aim_ops__execute_sql')).toEqual({
      server: 'supabase_right_aim_ops',
      tool: 'execute_sql',
    });
    expect(mcpName('mcp__n8n-mcp__n8n_health_check')).toEqual({
      server: 'n8n-mcp',
      tool: 'n8n_health_check',
    });
    expect(mcpName('mcp__server__a__b')).toEqual({ server: 'server', tool: 'a__b' });
    for (const other of ['Bash', 'mcp__only', 'mcp____x', 'xmcp__a__b', undefined])
      expect(mcpName(other), String(other)).toBeUndefined();
  });
});

describe('ExitPlanMode', () => {
  const call = item({ type: 'tool:ExitPlanMode', role: 'use', input: { plan: '# Plan\n\n- a' } });
  const result = (output: string, failed = false) =>
    item({
      type: 'tool:ExitPlanMode',
      role: 'result',
      result: { output },
      ...(failed ? { is_error: true } : {}),
    });

  it('reads the plan, and whether the person approved it', () => {
    expect(planText(call)).toBe('# Plan\n\n- a');
    expect(planText(item({ type: 'tool:ExitPlanMode', input: {} }))).toBeUndefined();
    expect(planDecision(undefined)).toBe('pending');
    expect(planDecision(result('User has approved your plan. You can now start coding.'))).toBe('approved');
    expect(planDecision(result('User has approved exiting plan mode. You can now proceed.'))).toBe(
      'approved',
    );
    expect(
      planDecision(
        result("The user doesn't want to proceed with this tool use. The tool use was rejected.", true),
      ),
    ).toBe('rejected');
    expect(planDecision(result('something else'))).toBe('unknown');
  });
});

describe('AskUserQuestion', () => {
  const questions = [
    {
      question: 'Which "size"?',
      header: 'Size',
      options: [{ label: 'Small', description: 'fits' }, { label: 'Large' }],
      multiSelect: false,
    },
    {
      question: 'Which colours?',
      options: [{ label: 'Red' }, { label: 'Blue' }, { label: 'Green' }],
      multiSelect: true,
    },
  ];
  const call = item({ type: 'tool:AskUserQuestion', role: 'use', input: { questions } });

  it('reads the questions and their options', () => {
    const read = questionsOf(call)!;
    expect(read.map((q) => q.question)).toEqual(['Which "size"?', 'Which colours?']);
    expect(read[0]!.options).toEqual([{ label: 'Small', description: 'fits' }, { label: 'Large' }]);
    expect(read[1]!.multiSelect).toBe(true);
    expect(questionsOf(item({ type: 'tool:AskUserQuestion', input: { questions: 'x' } }))).toBeUndefined();
  });

  it('finds each answer by its question, quotes and commas inside included', () => {
    const read = questionsOf(call)!;
    const text =
      'User has answered your questions: "Which "size"?"="Small", "Which colours?"="Red, Blue". You can now continue with the user\'s answers in mind.';
    const answers = answersOf(read, text);
    expect(answers.get('Which "size"?')).toBe('Small');
    expect(answers.get('Which colours?')).toBe('Red, Blue');
    expect(isChosen(read[0]!.options[0]!, answers.get('Which "size"?'), false)).toBe(true);
    expect(isChosen(read[0]!.options[1]!, answers.get('Which "size"?'), false)).toBe(false);
    expect(read[1]!.options.map((o) => isChosen(o, answers.get('Which colours?'), true))).toEqual([
      true,
      true,
      false,
    ]);
    // An answer in the person's own words is kept as written.
    const own = answersOf(
      read,
      'User has answered your questions: "Which "size"?"="main was clean; fix it". You can now continue.',
    );
    expect(own.get('Which "size"?')).toBe('main was clean; fix it');
    expect(answersOf(read, undefined).size).toBe(0);
  });
});

describe('JSON results', () => {
  it('are indented when the text is one JSON object or array, and left alone otherwise', () => {
    expect(resultJson('{"a":1,"b":[2]}')).toBe('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}');
    expect(resultJson(' [1] ')).toBe('[\n  1\n]');
    for (const t of ['plain', '{broken', '42', '"s"', undefined])
      expect(resultJson(t), String(t)).toBeUndefined();
  });
});

describe('the data-URL rule', () => {
  const data = Buffer.from('not really a png').toString('base64');

  it('draws PNG, JPEG, GIF and WebP, whatever the case of the recorded type', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'IMAGE/PNG'])
      expect(imageDataUrl({ mediaType: type, data })).toEqual({
        ok: true,
        url: `data:${type.toLowerCase()};base64,${data}`,
      });
  });

  it('never draws SVG or anything else, bytes that are not base64, or an image past the cap', () => {
    for (const type of ['image/svg+xml', 'text/html', 'application/octet-stream', '', 'image/png;x=1'])
      expect(imageDataUrl({ mediaType: type, data }).ok, type).toBe(false);
    expect(imageDataUrl({ mediaType: 'image/png', data: 'abc"><script>' }).ok).toBe(false);
    expect(imageDataUrl({ mediaType: 'image/png', data: '' }).ok).toBe(false);
    const huge = 'A'.repeat(Math.ceil((MAX_SHOWN_IMAGE_BYTES * 4) / 3) + 8);
    expect(imageDataUrl({ mediaType: 'image/png', data: huge })).toEqual({
      ok: false,
      reason: 'too large to show',
    });
  });
});

describe('images in records of other agents', () => {
  const data = Buffer.from('picture').toString('base64');

  it("finds a Codex prompt's images in its response item and in its user_message event", () => {
    const item = {
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_image', image_url: `data:image/png;base64,${data}` }],
      },
    };
    const event = {
      type: 'event_msg',
      payload: { type: 'user_message', message: 'x', images: [`data:image/webp;base64,${data}`] },
    };
    expect(promptImagesIn(item)).toEqual([{ mediaType: 'image/png', data }]);
    expect(promptImagesIn(event)).toEqual([{ mediaType: 'image/webp', data }]);
  });

  it("finds a pi tool result's image in its message, and a Codex output's in its JSON", () => {
    const pi = {
      type: 'message',
      message: { role: 'toolResult', content: [{ type: 'image', data, mimeType: 'image/gif' }] },
    };
    expect(resultImagesIn(pi, 'call_1')).toEqual([{ mediaType: 'image/gif', data }]);
    const codex = {
      type: 'response_item',
      payload: {
        type: 'function_call_output',
        call_id: 'c',
        output: JSON.stringify([{ type: 'input_image', image_url: `data:image/jpeg;base64,${data}` }]),
      },
    };
    expect(resultImagesIn(codex, 'c')).toEqual([{ mediaType: 'image/jpeg', data }]);
  });
});

describe('images of the generated session, found in the records their items point to', () => {
  let s: StructuredSession;
  let items: TranscriptItem[];
  const record = (i: TranscriptItem): unknown => {
    const source = (i as unknown as { source: { file: string; offset: number; length: number } }).source;
    const bytes = readFileSync(source.file).subarray(source.offset, source.offset + source.length);
    return parseJson(bytes.toString('utf8'));
  };

  beforeAll(async () => {
    const home = tempHome();
    s = writeStructuredSession(join(home, '.claude'), '/home/dev/site');
    const loaded = await loadTranscript(tempPlatform(home), { path: s.path, agent: 'claude-code' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const c = classifyTranscript(loaded.value);
    if (!c.ok) throw new Error(c.error.message);
    items = c.value.items;
  });

  it('a prompt: one note per image, and the bytes in its record', () => {
    const prompt = items.find((i) => i.type === 'message:user:in')!;
    expect(promptImageNotes(prompt)).toHaveLength(1);
    const found = promptImagesIn(record(prompt));
    expect(found).toEqual([{ mediaType: 'image/png', data: s.promptImage }]);
    expect(imageDataUrl(found[0]!).ok).toBe(true);
  });

  it('an MCP result: its JSON text, one note per image, and the image once though the record repeats it', () => {
    const result = items.find(
      (i) => i.type.startsWith('tool:mcp__') && (i as unknown as Fields).role === 'result',
    )!;
    const parts = resultParts(result);
    expect(parts.texts).toEqual([JSON.stringify(s.mcpJson)]);
    expect(parts.images).toEqual([expect.stringMatching(/^\[image: image\/png, /)]);
    expect(resultImagesIn(record(result), 'toolu_shot')).toEqual([
      { mediaType: 'image/png', data: s.screenshot },
    ]);
  });

  it('the plan and the answer, read off the items', () => {
    const planResult = items.find(
      (i) => i.type === 'tool:ExitPlanMode' && (i as unknown as Fields).role === 'result',
    );
    expect(planDecision(planResult)).toBe('approved');
    const ask = items.find(
      (i) => i.type === 'tool:AskUserQuestion' && (i as unknown as Fields).role === 'use',
    )!;
    const answer = items.find(
      (i) => i.type === 'tool:AskUserQuestion' && (i as unknown as Fields).role === 'result',
    );
    expect(answersOf(questionsOf(ask)!, resultOutputText(answer)).get(QUESTION)).toBe(ANSWER);
  });
});
