// Images in items: found in every shape the agents record them, noted as `[image: image/png, 34 KB]`,
// and never carried as bytes by an item, a dump or `cairn show`'s lines, on a session written the way
// Claude Code writes one (a prompt's image and an MCP screenshot) and on the corpus's Codex session
// whose image URLs were redacted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TranscriptItem, validate } from '@cairn/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  base64Bytes,
  buildDump,
  byteSize,
  classifyTranscript,
  fromDataUrl,
  imageNote,
  imagesIn,
  isImageStub,
  loadTranscript,
  recordedImage,
  renderDumpMarkdown,
  type Transcript,
  withoutImageBytes,
} from '../../src/index.js';
import { corpus, corpusPath } from '../corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from '../homes.js';
import { type StructuredSession, writeStructuredSession } from '../support/structured-session.js';

type Fields = Record<string, unknown>;

const png = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

describe('recorded images', () => {
  it('are found in the shapes Claude Code, MCP servers, pi, Codex and Gemini CLI write', () => {
    const data = png(30);
    expect(
      recordedImage({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }),
    ).toEqual({ mediaType: 'image/png', data });
    expect(recordedImage({ type: 'image', data, mimeType: 'image/jpeg' })).toEqual({
      mediaType: 'image/jpeg',
      data,
    });
    expect(recordedImage({ type: 'input_image', image_url: `data:image/webp;base64,${data}` })).toEqual({
      mediaType: 'image/webp',
      data,
    });
    expect(recordedImage({ inlineData: { mimeType: 'image/gif', data } })).toEqual({
      mediaType: 'image/gif',
      data,
    });
    // Not images: text, a URL that is not a data URL, an image block without its bytes.
    expect(recordedImage({ type: 'text', text: data })).toBeUndefined();
    expect(recordedImage({ type: 'input_image', image_url: 'https://example.com/a.png' })).toBeUndefined();
    expect(recordedImage({ type: 'image', media_type: 'image/png', bytes: 30 })).toBeUndefined();
    expect(fromDataUrl('data:image/png,notbase64')).toBeUndefined();
  });

  it('are noted by type and size, and a hostile type cannot stretch the note', () => {
    expect(base64Bytes(png(1))).toBe(1);
    expect(base64Bytes(png(2))).toBe(2);
    expect(base64Bytes(png(3))).toBe(3);
    expect(byteSize(812)).toBe('812 B');
    expect(byteSize(34 * 1024)).toBe('34 KB');
    expect(byteSize(Math.round(2.4 * 1024 * 1024))).toBe('2.4 MB');
    expect(imageNote({ mediaType: 'image/png', data: png(34 * 1024) })).toBe('[image: image/png, 34 KB]');
    expect(imageNote({ mediaType: `image/png\n${'x'.repeat(500)}`, data: png(10) })).toBe(
      '[image: unknown type, 10 B]',
    );
  });

  it('are found anywhere in a record, in order, as many as asked for', () => {
    const a = png(10);
    const b = png(20);
    const record = {
      message: {
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', data: a, mimeType: 'image/png' },
        ],
      },
      payload: { images: [`data:image/jpeg;base64,${b}`] },
    };
    expect(imagesIn(record).map((i) => i.data)).toEqual([a, b]);
    expect(imagesIn(record, 1)).toHaveLength(1);
  });

  it('leave a tool output as a stub that says what they were, and an output without one untouched', () => {
    const data = png(4096);
    const output = [
      { type: 'text', text: '{"ok":true}' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
    ];
    const stubbed = withoutImageBytes(output) as unknown[];
    expect(stubbed[0]).toBe(output[0]);
    expect(stubbed[1]).toEqual({
      type: 'image',
      media_type: 'image/png',
      bytes: 4096,
      text: '[image: image/png, 4 KB]',
    });
    expect(isImageStub(stubbed[1])).toBe(true);
    expect(JSON.stringify(stubbed)).not.toContain(data.slice(0, 40));
    const mcp = { content: [{ type: 'image', data, mimeType: 'image/png' }], isError: false };
    expect(JSON.stringify(withoutImageBytes(mcp))).not.toContain(data.slice(0, 40));
    const plain = [{ type: 'text', text: 'no image here' }];
    expect(withoutImageBytes(plain)).toBe(plain);
    expect(withoutImageBytes('text')).toBe('text');
  });
});

describe('a session with an image prompt and an MCP screenshot', () => {
  let s: StructuredSession;
  let t: Transcript;
  let items: Fields[];

  beforeAll(async () => {
    const home = tempHome();
    s = writeStructuredSession(join(home, '.claude'), '/home/dev/site');
    const loaded = await loadTranscript(tempPlatform(home), { path: s.path, agent: 'claude-code' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    t = loaded.value;
    const c = classifyTranscript(t);
    if (!c.ok) throw new Error(c.error.message);
    items = c.value.items as Fields[];
  });

  it('notes each prompt image on its prompt, and every item still validates', () => {
    const prompts = items.filter((i) => i.type === 'message:user:in');
    expect(prompts).toHaveLength(2);
    expect(prompts[0]!.text).toBe('Here is the mock-up; make the page look like it.');
    expect(prompts[0]!.images).toEqual([imageNote({ mediaType: 'image/png', data: s.promptImage })]);
    expect(prompts[0]!.images).toEqual([expect.stringMatching(/^\[image: image\/png, \d+ B\]$/)]);
    expect(prompts[1]!.images).toEqual([expect.stringMatching(/^\[image: image\/svg\+xml, \d+ B\]$/)]);
    for (const item of items) expect(validate(TranscriptItem, item).ok, JSON.stringify(item)).toBe(true);
  });

  it('keeps no image bytes in any item, and the MCP result keeps its JSON and a stub', () => {
    const all = JSON.stringify(items);
    for (const data of [s.promptImage, s.screenshot, s.readImage, s.svg]) expect(all).not.toContain(data);
    const shot = items.find(
      (i) => i.type === 'tool:mcp__playwright__browser_take_screenshot' && i.role === 'result',
    )!;
    const output = (shot.result as Fields).output as unknown[];
    expect(output[0]).toEqual({ type: 'text', text: JSON.stringify(s.mcpJson) });
    expect(isImageStub(output[1])).toBe(true);
  });

  it('dumps images as their notes, never as base64', () => {
    const built = buildDump(
      t,
      { sid: s.sid, types: ['message', 'tool'] },
      { presets: BUILTIN_PRESETS, writtenAt: 0 },
    );
    if (!built.ok) throw new Error(built.error.message);
    const md = renderDumpMarkdown(built.value.file);
    expect(md).toContain('[image: image/png, ');
    expect(md).toContain('[image: image/svg+xml, ');
    for (const data of [s.promptImage, s.screenshot, s.readImage, s.svg])
      expect(md).not.toContain(data.slice(0, 60));
  });
});

describe('a Codex rollout with an attached image', () => {
  it('notes the image by type and size on the prompt, from the data URL Codex keeps', async () => {
    const home = tempHome();
    const sid = '019c0000-0000-7000-8000-000000000001';
    const dir = join(home, '.codex', 'sessions', '2026', '03', '02');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `rollout-2026-03-02T09-00-00-${sid}.jsonl`);
    const data = png(3000);
    const at = (s: number) => `2026-03-02T09:00:0${s}.000Z`;
    const records = [
      {
        timestamp: at(0),
        type: 'session_meta',
        payload: { id: sid, timestamp: at(0), cwd: '/home/dev/site', cli_version: '0.104.0' },
      },
      {
        timestamp: at(1),
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'match this' },
            { type: 'input_text', text: '<image>' },
            { type: 'input_image', image_url: `data:image/jpeg;base64,${data}` },
            { type: 'input_text', text: '</image>' },
          ],
        },
      },
      {
        timestamp: at(2),
        type: 'event_msg',
        payload: { type: 'user_message', message: 'match this', images: [`data:image/jpeg;base64,${data}`] },
      },
    ];
    writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const loaded = await loadTranscript(tempPlatform(home), { path, agent: 'codex' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const c = classifyTranscript(loaded.value);
    if (!c.ok) throw new Error(c.error.message);
    const prompts = (c.value.items as Fields[]).filter((i) => i.type === 'message:user:in');
    expect(prompts.length).toBeGreaterThan(0);
    for (const p of prompts) expect(p.images).toEqual(['[image: image/jpeg, 3 KB]']);
    expect(JSON.stringify(c.value.items)).not.toContain(data.slice(0, 40));
  });
});

describe.skipIf(!corpus)('the corpus Codex session whose images were redacted', () => {
  it('still notes each attached image on its prompt', async () => {
    const path = corpusPath(
      'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    );
    const loaded = await loadTranscript(corpusPlatform(), { path, agent: 'codex' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const c = classifyTranscript(loaded.value);
    if (!c.ok) throw new Error(c.error.message);
    const withImages = (c.value.items as Fields[]).filter(
      (i) => i.type === 'message:user:in' && Array.isArray(i.images),
    );
    expect(withImages.length).toBeGreaterThan(0);
    for (const i of withImages) expect(i.images).toEqual(expect.arrayContaining(['[image]']));
  });
});
