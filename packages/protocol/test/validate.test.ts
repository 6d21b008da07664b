import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ITEM_FIXTURES,
  SNIPPET_MARK_END,
  SNIPPET_MARK_START,
  snippetParts,
  TranscriptItem,
  validate,
} from '../src/index.js';

describe('validate', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers the same where a Content-Security-Policy forbids generating code', () => {
    // A browser page without 'unsafe-eval' refuses the compiler's `new Function` with an EvalError.
    const compile = vi.spyOn(TypeCompiler, 'Compile').mockImplementation(() => {
      throw new EvalError('Refused to evaluate a string as JavaScript');
    });
    const schema = Type.Object({ since_at: Type.Integer({ minimum: 0 }) });
    expect(validate(schema, { since_at: 5 })).toEqual({ ok: true, value: { since_at: 5 } });
    expect(validate(schema, { since_at: -1 })).toMatchObject({ ok: false, error: { field: '/since_at' } });
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('compiles a schema once, however often it is used', () => {
    const compile = vi.spyOn(TypeCompiler, 'Compile');
    const schema = Type.Object({ a: Type.String() });
    for (let i = 0; i < 5; i++) validate(schema, { a: String(i) });
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('names the value itself when it is not even an object', () => {
    expect(validate(TranscriptItem, 'thinking')).toMatchObject({ ok: false, error: { field: '' } });
  });

  it('names the discriminating field when no member accepts it', () => {
    const checked = validate(TranscriptItem, { ...ITEM_FIXTURES.ThinkingItem, type: 'Thinking' });
    expect(checked).toMatchObject({ ok: false, error: { field: '/type' } });
  });

  it('lists the allowed values of a closed set', () => {
    const checked = validate(TranscriptItem, { ...ITEM_FIXTURES.HookItem, outcome: 'allow' });
    expect(checked).toMatchObject({ ok: false, error: { field: '/outcome' } });
    if (!checked.ok) expect(checked.error.message).toContain('"block"');
  });
});

describe('snippetParts', () => {
  const S = SNIPPET_MARK_START;
  const E = SNIPPET_MARK_END;

  it('cuts a snippet into plain and matched text, markers removed', () => {
    expect(snippetParts(`the ${S}ledger${E} lists ${S}itself${E}.`)).toEqual([
      { text: 'the ', match: false },
      { text: 'ledger', match: true },
      { text: ' lists ', match: false },
      { text: 'itself', match: true },
      { text: '.', match: false },
    ]);
  });

  it('keeps markup in transcript text as text', () => {
    expect(snippetParts(`<img onerror=x> ${S}<script>${E}`)).toEqual([
      { text: '<img onerror=x> ', match: false },
      { text: '<script>', match: true },
    ]);
  });

  it('runs an unclosed match to the end and drops a stray close', () => {
    expect(snippetParts(`a${E}b${S}c`)).toEqual([
      { text: 'a', match: false },
      { text: 'b', match: false },
      { text: 'c', match: true },
    ]);
  });
});
