// What the server holds of a followed session's files: a JSONL file only at its ends (the bytes its
// print covers) and what was appended since its tail was last taken, whatever its length; a JSON
// document whole. Appends, files rewritten in place, unfinished last lines and very long ones.
import { appendFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headPrint, ReadStats, SourceFiles } from '../src/reader/source-files.js';
import { tempDir } from './helpers.js';

const line = (i: number, pad = 40) => `${JSON.stringify({ n: i, text: 'x'.repeat(pad) })}\n`;
const lines = (from: number, count: number, pad?: number) =>
  Array.from({ length: count }, (_, k) => line(from + k, pad)).join('');

/** Sets a file's times back, as one left alone longer than a writer's pause. */
const settle = (path: string) =>
  utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

describe('SourceFiles', () => {
  it('holds a long JSONL file at its ends, with the print a read from disk gives', async () => {
    const path = join(tempDir(), 'long.jsonl');
    const text = lines(0, 100_000);
    writeFileSync(path, text);
    const files = new SourceFiles(new ReadStats());
    const r = await files.refresh(path);
    expect(r).toMatchObject({ kind: 'replaced', offset: text.length });
    expect(text.length).toBeGreaterThan(5_000_000);
    expect(files.size).toBeLessThan(200 * 1024);
    expect(files.stats.bytes).toBeLessThan(200 * 1024);
    expect(files.printOf(path, text.length)).toBe(await headPrint(path, text.length));
    // A whole read is not served from a file held in part: it goes to disk.
    expect(files.bytes(path)).toBeUndefined();
  });

  it('hands each append as a tail once, and lets go of it when the next is taken', async () => {
    const path = join(tempDir(), 'grows.jsonl');
    writeFileSync(path, lines(0, 50_000));
    const files = new SourceFiles(new ReadStats());
    const first = await files.refresh(path);
    if (first.kind !== 'replaced') throw new Error(first.kind);
    let at = first.offset;
    for (let round = 0; round < 5; round++) {
      const added = lines(50_000 + round * 10_000, 10_000);
      appendFileSync(path, added);
      const r = await files.refresh(path);
      expect(r).toMatchObject({ kind: 'appended', offset: at + added.length, bytes: added.length });
      expect(Buffer.from(files.tail(path, at)!).toString()).toBe(added);
      at += added.length;
      // What a tail handed over goes with the next: the cache holds about one append, never the file.
      expect(files.size).toBeLessThan(2 * added.length + 200 * 1024);
      expect(files.printOf(path, at)).toBe(await headPrint(path, at));
    }
    // Bytes before what the cache still holds are not at hand: the caller reads them from disk.
    expect(files.tail(path, 0)).toBeUndefined();
  });

  it('leaves out a last line still being written, until it ends or the file settles', async () => {
    const path = join(tempDir(), 'open.jsonl');
    const done = lines(0, 10);
    writeFileSync(path, `${done}{"n":10,"te`);
    const files = new SourceFiles(new ReadStats());
    expect(await files.refresh(path)).toMatchObject({ kind: 'replaced', offset: done.length });
    appendFileSync(path, 'xt":"end"}\n');
    const r = await files.refresh(path);
    expect(r).toMatchObject({ kind: 'appended', offset: done.length + '{"n":10,"text":"end"}\n'.length });
    expect(Buffer.from(files.tail(path, done.length)!).toString()).toBe('{"n":10,"text":"end"}\n');

    const settled = join(tempDir(), 'settled.jsonl');
    writeFileSync(settled, `${done}{"n":10}`);
    settle(settled);
    expect(await new SourceFiles(new ReadStats()).refresh(settled)).toMatchObject({
      offset: done.length + '{"n":10}'.length,
    });
  });

  it('finds the end of the last complete record behind an unfinished line longer than its first look', async () => {
    const path = join(tempDir(), 'long-line.jsonl');
    const done = lines(0, 1_000);
    writeFileSync(path, `${done}{"text":"${'y'.repeat(300_000)}`);
    const files = new SourceFiles(new ReadStats());
    expect(await files.refresh(path)).toMatchObject({ kind: 'replaced', offset: done.length });
    expect(files.printOf(path, done.length)).toBe(await headPrint(path, done.length));
  });

  it('reads a file written anew in place, even at the same length, again', async () => {
    const path = join(tempDir(), 'rewritten.jsonl');
    const text = lines(0, 20_000);
    writeFileSync(path, text);
    const files = new SourceFiles(new ReadStats());
    await files.refresh(path);
    // Same length, other first bytes, later mtime: not an append.
    writeFileSync(path, `{"n":9${text.slice(6)}`);
    utimesSync(path, new Date(), new Date(Date.now() + 2_000));
    expect(await files.refresh(path)).toMatchObject({ kind: 'replaced', offset: text.length });
    // Shorter than what was read: read again too.
    writeFileSync(path, lines(0, 10));
    expect(await files.refresh(path)).toMatchObject({ kind: 'replaced', offset: lines(0, 10).length });
  });

  it('holds a JSON document whole and serves it', async () => {
    const path = join(tempDir(), 'session.json');
    const text = JSON.stringify({ messages: Array.from({ length: 5_000 }, (_, i) => ({ i })) });
    writeFileSync(path, text);
    const files = new SourceFiles(new ReadStats());
    expect(await files.refresh(path)).toMatchObject({ kind: 'replaced', offset: text.length });
    expect(Buffer.from(files.bytes(path)!).toString()).toBe(text);
  });
});
