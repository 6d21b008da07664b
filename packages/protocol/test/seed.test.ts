// The contract's own examples validate against cairn's schemas, and broken copies of them do not.
import type { TObject } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  DUMP_PRESETS_READ_REQUEST,
  DUMP_PRESETS_READ_RESPONSE,
  DumpPresetsReadResponse,
  SEED_DUMP_PRESETS_READ_REQUEST,
  SEED_DUMP_PRESETS_READ_RESPONSE,
  SEED_SESSION_DUMP_FILE,
  SEED_SESSION_DUMP_WRITE_REQUEST,
  SEED_SESSION_DUMP_WRITE_RESPONSE,
  SEED_TRANSCRIPT_ITEMS,
  SESSION_DUMP_FILE,
  SESSION_DUMP_WRITE_REQUEST,
  SESSION_DUMP_WRITE_RESPONSE,
  SessionDumpFile,
  SessionDumpWriteRequest,
  SessionDumpWriteResponse,
  TRANSCRIPT_ITEM_MEMBERS,
  TRANSCRIPT_ITEMS,
  TranscriptItem,
  validate,
  validateRequest,
  validateResponse,
} from '../src/index.js';
import { mutations } from './mutate.js';

const examples = [
  ['session_dump_write request', SessionDumpWriteRequest, SEED_SESSION_DUMP_WRITE_REQUEST],
  ['session_dump_write response', SessionDumpWriteResponse, SEED_SESSION_DUMP_WRITE_RESPONSE],
  ['dump file', SessionDumpFile, SEED_SESSION_DUMP_FILE],
  ['dump_presets_read response', DumpPresetsReadResponse, SEED_DUMP_PRESETS_READ_RESPONSE],
] as const;

describe('the seed examples', () => {
  it('validate: requests as a server reads them, replies as a client does', () => {
    expect(validateRequest(SEED_SESSION_DUMP_WRITE_REQUEST)).toMatchObject({
      ok: true,
      op: 'session_dump_write',
    });
    expect(validateRequest(SEED_DUMP_PRESETS_READ_REQUEST)).toMatchObject({
      ok: true,
      op: 'dump_presets_read',
    });
    expect(validateResponse('session_dump_write', SEED_SESSION_DUMP_WRITE_RESPONSE).ok).toBe(true);
    expect(validateResponse('dump_presets_read', SEED_DUMP_PRESETS_READ_RESPONSE).ok).toBe(true);
    expect(validate(SessionDumpFile, SEED_SESSION_DUMP_FILE).ok).toBe(true);
  });

  it('validate as items, a call and its result linked both ways', () => {
    for (const item of SEED_TRANSCRIPT_ITEMS)
      expect(validate(TranscriptItem, item)).toEqual({ ok: true, value: item });
    const [use, result] = SEED_TRANSCRIPT_ITEMS.filter((item) => item.type === 'tool:Bash') as {
      uuid: string;
      result_item?: string;
      parent_item?: string;
    }[];
    expect(use?.result_item).toBe(result?.uuid);
    expect(result?.parent_item).toBe(use?.uuid);
  });

  const cases = examples.flatMap(([name, schema, value]) =>
    mutations(schema as TObject, value as Record<string, unknown>).map((m) => ({ ...m, name, schema })),
  );
  it.each(cases)('$name $label is refused, naming $field', ({ schema, value, field }) => {
    const checked = validate(schema, value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.field.startsWith(field)).toBe(true);
  });

  const itemCases = SEED_TRANSCRIPT_ITEMS.flatMap((item, index) => {
    const member = TRANSCRIPT_ITEM_MEMBERS.find((m) => validate(m.schema, item).ok);
    if (member === undefined) throw new Error(`seed item ${index} fits no member`);
    return mutations(member.schema, item as Record<string, unknown>).map((m) => ({
      ...m,
      name: `item ${index} (${item.type})`,
    }));
  });
  it.each(itemCases)('$name $label is refused, naming $field', ({ value, field }) => {
    const checked = validate(TranscriptItem, value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.field.startsWith(field)).toBe(true);
  });

  it('preset references and exclusions are selector elements, and the dump requests are open as the contract has them', () => {
    const preset = SEED_DUMP_PRESETS_READ_RESPONSE.presets.find((p) => p.name === 'howto');
    expect(preset?.opts.types).toContain('@file');
    expect(validateRequest({ ...SEED_DUMP_PRESETS_READ_REQUEST, verbose: true })).toMatchObject({ ok: true });
    expect(validateRequest({ ...SEED_SESSION_DUMP_WRITE_REQUEST, verbose: true })).toMatchObject({
      ok: true,
    });
  });

  it('are exported under the names the contract gives them', () => {
    expect(SESSION_DUMP_WRITE_REQUEST).toBe(SEED_SESSION_DUMP_WRITE_REQUEST);
    expect(SESSION_DUMP_WRITE_RESPONSE).toBe(SEED_SESSION_DUMP_WRITE_RESPONSE);
    expect(SESSION_DUMP_FILE).toBe(SEED_SESSION_DUMP_FILE);
    expect(DUMP_PRESETS_READ_REQUEST).toBe(SEED_DUMP_PRESETS_READ_REQUEST);
    expect(DUMP_PRESETS_READ_RESPONSE).toBe(SEED_DUMP_PRESETS_READ_RESPONSE);
    expect(TRANSCRIPT_ITEMS).toBe(SEED_TRANSCRIPT_ITEMS);
  });
});
