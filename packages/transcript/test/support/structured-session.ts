// A Claude Code session written the way Claude Code writes one, holding what the corpus lacks in a
// readable form: a prompt with an image attached, an MCP tool that returns a screenshot and JSON, a
// plan the person approved (ExitPlanMode) and a question they answered (AskUserQuestion).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

/** A PNG of `width` × `height` pixels in one colour, as base64. */
export function pngBase64(width: number, height: number, rgb: [number, number, number]): string {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

/** What the session holds, for a test to look for. */
export interface StructuredSession {
  readonly sid: string;
  readonly path: string;
  readonly cwd: string;
  readonly promptImage: string;
  readonly screenshot: string;
  /** A picture a Read of an image file answered with. */
  readonly readImage: string;
  /** An SVG attached to a prompt: recorded, and never drawn. */
  readonly svg: string;
  readonly plan: string;
  readonly question: string;
  readonly answer: string;
  readonly mcpJson: Record<string, unknown>;
}

export const PLAN = [
  '# Plan: thumbnails',
  '',
  '1. Read the **record** of each image.',
  '2. Draw it as a `data:` URL.',
  '',
  '<img src=x onerror="window.__planScript=1">',
].join('\n');

export const QUESTION = 'Which "size" should thumbnails have?';
export const ANSWER = 'Small (120 px)';

/** Writes the session into `claudeDir` (a Claude Code config folder), for the folder `cwd`. */
export function writeStructuredSession(
  claudeDir: string,
  cwd: string,
  sid = '5e55a0e1-1111-4222-8333-944444444444',
): StructuredSession {
  const dir = join(claudeDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${sid}.jsonl`);
  const promptImage = pngBase64(64, 48, [200, 60, 40]);
  const screenshot = pngBase64(80, 50, [40, 90, 200]);
  const readImage = pngBase64(32, 32, [30, 160, 70]);
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg"><script>window.__svgScript=1</script></svg>',
  ).toString('base64');
  const mcpJson = {
    url: 'http://localhost:3000/',
    title: 'Dashboard',
    viewport: { width: 1280, height: 800 },
  };
  const lines: object[] = [];
  let n = 0;
  let parent: string | null = null;
  const clock = Date.parse('2026-03-02T09:00:00Z');
  const base = () => {
    n++;
    const uuid = `5e55a0e1-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const r = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId: sid,
      version: '2.1.39',
      gitBranch: 'main',
      uuid,
      timestamp: new Date(clock + n * 1000).toISOString(),
    };
    parent = uuid;
    return r;
  };
  const user = (content: unknown, extra: object = {}) =>
    lines.push({ ...base(), type: 'user', message: { role: 'user', content }, ...extra });
  const assistant = (content: object[]) => {
    const r = base();
    lines.push({
      ...r,
      type: 'assistant',
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content,
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 0,
        },
      },
    });
  };
  const call = (id: string, name: string, input: object) =>
    assistant([{ type: 'tool_use', id, name, input }]);
  const result = (id: string, content: unknown, toolUseResult: unknown, isError = false) =>
    user([{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }], {
      toolUseResult,
    });

  user([
    { type: 'text', text: 'Here is the mock-up; make the page look like it.' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: promptImage } },
  ]);
  call('toolu_shot', 'mcp__playwright__browser_take_screenshot', { fullPage: false });
  const shotContent = [
    { type: 'text', text: JSON.stringify(mcpJson) },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: screenshot } },
  ];
  result('toolu_shot', shotContent, shotContent);
  call('toolu_read', 'Read', { file_path: `${cwd}/mock.png` });
  result(
    'toolu_read',
    [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: readImage } }],
    {
      type: 'image',
      file: { base64: readImage, type: 'image/png', originalSize: 100 },
    },
  );
  call('toolu_plan', 'ExitPlanMode', { plan: PLAN });
  result(
    'toolu_plan',
    'User has approved your plan. You can now start coding. Start with updating your todo list if applicable',
    { plan: PLAN, isAgent: false },
  );
  const questions = [
    {
      question: QUESTION,
      header: 'Size',
      options: [
        { label: 'Small (120 px)', description: 'Fits many per row' },
        { label: 'Large (320 px)', description: 'Easier to read' },
      ],
      multiSelect: false,
    },
  ];
  call('toolu_ask', 'AskUserQuestion', { questions });
  result(
    'toolu_ask',
    `User has answered your questions: "${QUESTION}"="${ANSWER}". You can now continue with the user's answers in mind.`,
    { questions, answers: { [QUESTION]: ANSWER } },
  );
  user([
    { type: 'text', text: 'And this one is a vector drawing.' },
    { type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: svg } },
  ]);
  assistant([{ type: 'text', text: 'Done: the page now matches the mock-up.' }]);
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return {
    sid,
    path,
    cwd,
    promptImage,
    screenshot,
    readImage,
    svg,
    plan: PLAN,
    question: QUESTION,
    answer: ANSWER,
    mcpJson,
  };
}
