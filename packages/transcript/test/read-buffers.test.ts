import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReadBuffers } from '../src/read-buffers.js';
import { tempHome } from './homes.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('ReadBuffers', () => {
  it('keeps every file of a job intact until release, then reads the next job into the same memory', () => {
    const dir = tempHome();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(dir, `${n}.jsonl`));
    writeFileSync(a!, '{"a":1}\n');
    writeFileSync(b!, '{"b":2}\n{"b":3}\n');
    writeFileSync(c!, '');
    const buffers = new ReadBuffers();
    const first = buffers.read(a!);
    const second = buffers.read(b!);
    expect([text(first), text(second), buffers.read(c!).length]).toEqual([
      '{"a":1}\n',
      '{"b":2}\n{"b":3}\n',
      0,
    ]);
    buffers.release();
    // A file that grew is read whole, into the buffer the first file of the last job had.
    appendFileSync(b!, '{"b":4}\n');
    const again = buffers.read(b!);
    expect(text(again)).toBe('{"b":2}\n{"b":3}\n{"b":4}\n');
    expect(again.buffer).toBe(first.buffer);
  });

  it('reports a missing file as the error a read gives', () => {
    expect(() => new ReadBuffers().read(join(tempHome(), 'gone.jsonl'))).toThrow(/ENOENT/);
  });
});
