// A dump written a piece at a time holds the bytes of the whole file serialized at once: for every
// corpus session, in JSON and Markdown, redacted or not, and for a dump whose secrets span many
// redaction batches.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionDumpFile, SessionDumpWriteArgs, TranscriptItem } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { dumpJsonPieces, redactDumpFile } from '../src/dump-stream.js';
import {
  buildDump,
  listSessions,
  loadTranscript,
  redactValue,
  renderDumpMarkdown,
  writeDump,
} from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform, tempHome } from './homes.js';

const NOW = Date.UTC(2026, 1, 1);

/** The dump as it was written before it went out in pieces: redacted whole, serialized whole. */
async function wholeDump(file: SessionDumpFile, format: 'json' | 'md', redact: boolean) {
  const r = redact ? await redactValue(file) : { value: file, counts: undefined };
  const text = format === 'md' ? renderDumpMarkdown(r.value) : `${JSON.stringify(r.value, null, 2)}\n`;
  return { text, counts: r.counts };
}

describe.skipIf(!corpus)('dumps written in pieces', () => {
  it('match the whole-file dump byte for byte for every corpus session', async () => {
    const platform = corpusPlatform();
    const home = tempHome();
    let sessions = 0;
    for await (const head of listSessions(platform)) {
      if ('ref' in head) continue;
      const loaded = await loadTranscript(platform, {
        path: head.path,
        agent: head.agent,
        sessionId: head.id,
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      sessions++;
      for (const format of ['json', 'md'] as const)
        for (const redact of [true, false]) {
          const args: SessionDumpWriteArgs = { sid: head.id, agent: head.agent, format, redact };
          const built = buildDump(loaded.value, args, { presets: [], writtenAt: NOW });
          if (!built.ok) throw new Error(built.error.message);
          const want = await wholeDump(built.value.file, format, redact);
          const out = join(home, `${head.id}.${redact}.${format}`);
          const written = await writeDump(loaded.value, args, { home, out, presets: [], now: NOW });
          if (!written.ok) throw new Error(written.error.message);
          const label = `${head.agent} ${head.id} ${format} redact=${redact}`;
          const got = readFileSync(out, 'utf8');
          expect(got === want.text, label).toBe(true);
          expect(written.value.bytes, label).toBe(Buffer.byteLength(want.text));
          expect(written.value.redacted, label).toEqual(want.counts);
        }
    }
    expect(sessions).toBeGreaterThan(5);
  }, 300_000);
});

describe('a dump redacted in batches', () => {
  const GITHUB = `ghp_${'Zq7Lm2Xw9Rt4Yp8Kd3Vb6Nc1Hf5Js0GaQ2w4'}`;
  const AWS = 'AKIAZ3MSJV4WWNKWW5FF';
  /** A dump of `n` items of some 3 KB each, a secret in every tenth and the same text now and then. */
  const file = (n: number): SessionDumpFile => {
    const items = Array.from({ length: n }, (_, i) => {
      const secret = i % 10 === 0 ? ` export GITHUB_TOKEN=${GITHUB} ` : i % 10 === 5 ? ` key ${AWS} ` : '';
      return {
        uuid: `u-${i}`,
        type: 'message:assistant:out',
        at: NOW + i,
        text: `${i % 7 === 0 ? 'the same text again' : `reply ${i}`} ${'lorem ipsum '.repeat(250)}${secret}`,
        nested: { list: [`path/to/file-${i % 3}.ts`, { deep: secret || 'nothing here' }] },
      } as unknown as TranscriptItem;
    });
    return {
      sid: 'batched',
      agent: 'claude-code',
      written_at: NOW,
      types: ['message:assistant:out'],
      items,
      ids: [{ kind: 'agent', id: 'agent-1', label: `label with ${AWS}` }],
    } as unknown as SessionDumpFile;
  };

  it('gives what redacting the whole file gives, over several batches', async () => {
    const f = file(4000);
    const whole = await redactValue(f);
    const batched = await redactDumpFile(f);
    expect(batched.counts).toEqual(whole.counts);
    expect(batched.counts['GitHub token'] ?? Object.values(batched.counts)[0]).toBeGreaterThan(300);
    expect(JSON.stringify(batched.file)).toBe(JSON.stringify(whole.value));
    expect(JSON.stringify(batched.file)).not.toContain(AWS);
    expect([...dumpJsonPieces(batched.file)].join('')).toBe(`${JSON.stringify(whole.value, null, 2)}\n`);
  });

  it('serializes the odd shapes as JSON.stringify does: no items, undefined fields, empty ids', () => {
    const odd = { ...file(0), agent_id: undefined, ids: [], extra: { a: [] } } as unknown as SessionDumpFile;
    expect([...dumpJsonPieces(odd)].join('')).toBe(`${JSON.stringify(odd, null, 2)}\n`);
    const one = { ...file(1), items: [{ uuid: 'x', type: 'notice', text: 'a\nb "q" \u2028' }] } as never;
    expect([...dumpJsonPieces(one)].join('')).toBe(`${JSON.stringify(one, null, 2)}\n`);
  });
});
