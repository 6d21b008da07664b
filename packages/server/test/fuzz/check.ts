// What must hold for any case the fuzzer makes: loading gives a value and never throws, every
// line of a JSONL file is accounted for, every pointer reads back its bytes, the adapter's fast
// summary equals the fold, and items, dumps and stream frames serialize and validate.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  SessionDumpFile,
  SessionStreamFrame,
  SessionSummary,
  STREAM_FRAME_FIXTURES,
  TranscriptItem,
  validate,
} from '@cairn/protocol';
import {
  BUILTIN_PRESETS,
  buildDump,
  countLines,
  foldTranscript,
  loadTranscript,
  readOriginal,
  renderDumpMarkdown,
  type SessionPlatform,
  splitLines,
  summarizeSession,
  type Transcript,
} from '@cairn/transcript';
import { laneItems } from '../../src/indexing/search-docs.js';
import { FrameBuilder, itemsByEvent } from '../../src/streams/frames.js';
import { damageCompressed, type FuzzCase } from './mutate.js';

/** A case's files written under `home`; answers the main file's path and each file's plain bytes. */
function writeCase(
  c: FuzzCase,
  home: string,
): { main: string; plain: Map<string, Uint8Array>; steps: string[] } {
  rmSync(join(home, '.claude'), { recursive: true, force: true });
  rmSync(join(home, '.codex'), { recursive: true, force: true });
  rmSync(join(home, '.gemini'), { recursive: true, force: true });
  rmSync(join(home, '.qwen'), { recursive: true, force: true });
  rmSync(join(home, '.pi'), { recursive: true, force: true });
  rmSync(join(home, '.copilot'), { recursive: true, force: true });
  rmSync(join(home, '.local', 'share', 'opencode'), { recursive: true, force: true });
  const plain = new Map<string, Uint8Array>();
  const steps: string[] = [];
  let main = '';
  c.files.forEach((f, i) => {
    let path = join(home, f.rel);
    mkdirSync(dirname(path), { recursive: true });
    if (i === 0 && c.zstd) {
      writeFileSync(path, f.data);
      execFileSync('zstd', ['-q', '-f', '--rm', '-1', path, '-o', `${path}.zst`]);
      path = `${path}.zst`;
      const packed = new Uint8Array(readFileSync(path));
      const damaged = damageCompressed(c.seed, packed);
      writeFileSync(path, damaged.data);
      steps.push(damaged.step);
      // Intact compressed bytes decompress to the plain ones; damaged ones have no plain bytes to compare.
      if (damaged.step === 'zstd intact') plain.set(path, f.data);
    } else {
      writeFileSync(path, f.data);
      plain.set(path, f.data);
    }
    if (i === 0) main = path;
  });
  return { main, plain, steps };
}

const fail = (c: FuzzCase, steps: string[], what: string): never => {
  throw new Error(`fuzz case ${c.seed} (${[...c.steps, ...steps].join(', ')}): ${what}`);
};

function expectValid(
  c: FuzzCase,
  steps: string[],
  what: string,
  schema: Parameters<typeof validate>[0],
  value: unknown,
) {
  const v = validate(schema, value);
  if (!v.ok)
    fail(
      c,
      steps,
      `${what} breaks the protocol: ${v.error.message} in ${JSON.stringify(value).slice(0, 400)}`,
    );
}

/** Runs one case through the library and the server's stream frames; throws what broke. */
export async function checkCase(c: FuzzCase, home: string, platform: SessionPlatform): Promise<void> {
  const { main, plain, steps } = writeCase(c, home);
  const target = { agent: c.agent, path: main };
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) {
    // A damaged compressed file or a first record of no known generation: a value, with a message.
    if (!loaded.error.message) fail(c, steps, `a failure without a message: ${JSON.stringify(loaded.error)}`);
    return;
  }
  const t = loaded.value;

  // Every line accounted for, and every pointer inside its file and at the bytes of its line.
  const sources = [...t.events.map((e) => e.source), ...t.skipped.map((s) => s.source)];
  for (const [path, data] of plain) {
    const own = sources.filter((s) => s.file === path);
    if (path.endsWith('.jsonl') || path.endsWith('.jsonl.zst')) {
      const spans = [...splitLines(data)];
      const lines = new Set(own.map((s) => s.line));
      if (lines.size !== countLines(data))
        fail(c, steps, `${path}: ${lines.size} of ${countLines(data)} lines accounted for`);
      for (const s of own) {
        const span = spans[s.line - 1];
        if (!span || span.offset !== s.offset || span.length !== s.length)
          fail(c, steps, `${path}:${s.line}: pointer ${s.offset}+${s.length} is not the line's bytes`);
      }
    } else {
      for (const s of own)
        if (s.offset < 0 || s.offset + s.length > data.length)
          fail(c, steps, `${path}: pointer outside the file`);
    }
  }
  // Pointers read back through the library, compressed files included.
  for (const s of sources.slice(0, 3)) {
    const back = await readOriginal(platform, s);
    if (!back.ok) fail(c, steps, `readOriginal failed on a fresh pointer: ${back.error.message}`);
  }

  // The fast summary equals the fold, and both fit the protocol.
  const folded = foldTranscript(t, { prompts: true });
  const fast = await summarizeSession(platform, target, { prompts: true });
  if (!fast.ok) fail(c, steps, `summary failed where loading did not: ${fast.error.message}`);
  else if (JSON.stringify(fast.value) !== JSON.stringify(folded))
    fail(
      c,
      steps,
      `fast summary ${JSON.stringify({ ...fast.value, prompts: undefined })} != fold ${JSON.stringify({ ...folded, prompts: undefined })}`,
    );
  const { prompts: _prompts, ...numbers } = folded;
  expectValid(c, steps, 'the summary', SessionSummary, numbers);

  // Items of every lane, dumps, and the stream's frames.
  checkItemsAndFrames(c, steps, t);
  for (const args of [
    { preset: 'howto' },
    { types: ['tool', 'message', 'thinking', 'system', 'hook', 'notice'] },
  ]) {
    const built = buildDump(
      t,
      { sid: t.session.id || 'sid', ...args },
      { presets: BUILTIN_PRESETS, writtenAt: 1 },
    );
    if (!built.ok) fail(c, steps, `dump refused: ${built.error.message}`);
    else {
      expectValid(c, steps, 'the dump', SessionDumpFile, JSON.parse(JSON.stringify(built.value.file)));
      renderDumpMarkdown(built.value.file);
    }
  }
}

function checkItemsAndFrames(c: FuzzCase, steps: string[], t: Transcript): void {
  const lanes = laneItems(t);
  for (const lane of lanes)
    for (const item of lane.classification.items) expectValid(c, steps, 'an item', TranscriptItem, item);
  const builder = new FrameBuilder(t, t.session.id || 'sid', itemsByEvent(lanes));
  t.events.forEach((e, seq) => {
    for (const frame of builder.frames(e, seq)) {
      const text = JSON.stringify(frame);
      expectValid(c, steps, `a ${frame.type} frame`, SessionStreamFrame, JSON.parse(text));
    }
  });
  const history = lanes.find((l) => l.agentId === undefined)?.classification.items ?? [];
  const ready = {
    ...STREAM_FRAME_FIXTURES.SessionReadyFrame,
    session_id: t.session.id || 'sid',
    sessionId: t.session.id || 'sid',
    agent: t.agent,
    totalMessageCount: history.length,
    loadedMessageCount: history.length,
    history,
  };
  expectValid(c, steps, 'the session_ready frame', SessionStreamFrame, JSON.parse(JSON.stringify(ready)));
}
