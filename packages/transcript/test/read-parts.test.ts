// Reading a file from disk a part at a time: every part but the last ends after a line, a line
// longer than a part comes whole in one, and the parts put back together are the file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodePlatform } from '../src/index.js';
import { type FilePart, readParts } from '../src/read.js';
import { tempHome } from './homes.js';

async function partsOf(text: string, partBytes: number, end?: number): Promise<FilePart[]> {
  const path = join(tempHome(), 'session.jsonl');
  writeFileSync(path, text);
  const parts: FilePart[] = [];
  // A part's bytes hold only until the next part is asked for: each is copied as it comes.
  for await (const part of readParts(nodePlatform(), path, partBytes, undefined, end))
    parts.push({ ...part, data: Buffer.from(part.data) });
  return parts;
}

const joined = (parts: FilePart[]) => Buffer.concat(parts.map((p) => p.data)).toString();

describe('readParts', () => {
  it('cuts after the last line of each part; the parts are the file, in order, from their starts', async () => {
    const text = ['{"a":1}', '{"b":22}', '{"c":333}', '{"d":4444}', ''].join('\n');
    const parts = await partsOf(text, 12);
    expect(joined(parts)).toBe(text);
    for (const [i, p] of parts.entries()) {
      expect(p.start).toBe(i === 0 ? 0 : parts[i - 1]!.start + parts[i - 1]!.data.length);
      expect(p.last).toBe(i === parts.length - 1);
      if (!p.last) expect(p.data[p.data.length - 1]).toBe(10);
    }
    expect(parts.length).toBeGreaterThan(2);
  });

  it('reads a line longer than a part whole, in one part', async () => {
    const long = `{"text":"${'x'.repeat(100)}"}`;
    const parts = await partsOf(`{"a":1}\n${long}\n{"b":2}\n`, 16);
    expect(joined(parts)).toBe(`{"a":1}\n${long}\n{"b":2}\n`);
    expect(parts.some((p) => p.data.toString().startsWith(`${long}\n`))).toBe(true);
    for (const p of parts.slice(0, -1)) expect(p.data[p.data.length - 1]).toBe(10);
  });

  it('gives an unterminated last line in the last part, and an empty last part at an exact end', async () => {
    const open = await partsOf('{"a":1}\n{"b":2', 8);
    expect(open.map((p) => p.data.toString())).toEqual(['{"a":1}\n', '{"b":2']);
    expect(open.map((p) => p.last)).toEqual([false, true]);
    const exact = await partsOf('{"a":1}\n', 8);
    expect(exact.map((p) => [p.data.toString(), p.start, p.last])).toEqual([
      ['{"a":1}\n', 0, false],
      ['', 8, true],
    ]);
  });

  it('stops at `end`, a part ending there being the last, whatever follows in the file', async () => {
    const text = ['{"a":1}', '{"b":22}', '{"c":333}', '{"d":4444}', ''].join('\n');
    const end = '{"a":1}\n{"b":22}\n{"c":333}\n'.length;
    const parts = await partsOf(text, 12, end);
    expect(joined(parts)).toBe(text.slice(0, end));
    expect(parts.at(-1)?.last).toBe(true);
    expect(parts.filter((p) => p.last)).toHaveLength(1);
  });

  it('gives one empty last part for an empty file', async () => {
    const parts = await partsOf('', 8);
    expect(parts.map((p) => [p.data.length, p.start, p.last])).toEqual([[0, 0, true]]);
  });
});
