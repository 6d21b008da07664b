import { describe, expect, it } from 'vitest';
import type { IndexDoc } from '../src/indexing/index-db.js';
import { batchBytes, docsOf } from '../src/indexing/index-job.js';

const doc = (text: string, n: number): IndexDoc => ({
  itemKey: `main:${n}`,
  itemUuid: `u-${n}`,
  itemType: 'assistant-text',
  target: 'assistant',
  at: 1_700_000_000_000 + n,
  text,
});

describe('document batches as bytes', () => {
  it('give back every text exactly, whatever characters it holds', () => {
    const texts = [
      'plain ASCII with "quotes", \\ backslashes and\ttabs\nnewlines \u007f',
      'accents: café, naïve; CJK 漢字; Cyrillic Привет',
      'astral: 🙂 𝄞, a pair split by nothing',
      'lone surrogates: \ud800 and \udfff stay what they are',
      'control and line separators: \u0000 \u2028 \u2029 \ufeff \uffff',
      '<script>alert(1)</script> &amp;',
    ];
    const docs = texts.map(doc);
    const units = batchBytes(docs);
    expect(units).toBeInstanceOf(Uint16Array);
    expect(docsOf(units)).toEqual(docs);
  });

  it('hold an all-ASCII batch one byte per character', () => {
    const docs = ['plain "text"', 'with \\ and \n escapes, \u0001'].map(doc);
    const bytes = batchBytes(docs);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes.length).toBe(JSON.stringify(docs).length);
    expect(docsOf(bytes)).toEqual(docs);
  });

  it('give back a batch of many documents, in order, when it is held in pieces', () => {
    for (const accent of ['', 'é']) {
      const docs = Array.from({ length: 2_000 }, (_, n) => doc(`${accent}line ${n}\n`.repeat(n % 50), n));
      const bytes = batchBytes(docs);
      expect(bytes.indexOf(0x0a)).toBeGreaterThan(0);
      expect(docsOf(bytes)).toEqual(docs);
    }
    expect(docsOf(batchBytes([]))).toEqual([]);
  });

  it('each sit in a buffer of their own, so that they can move to another thread', () => {
    for (const text of ['x', 'ü']) {
      const bytes = batchBytes([doc(text, 1)]);
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
      const moved = structuredClone(bytes, { transfer: [bytes.buffer as ArrayBuffer] });
      expect(bytes.length).toBe(0);
      expect(docsOf(moved)).toEqual([doc(text, 1)]);
    }
  });
});
