import type { TObject, TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  contractJsonSchema,
  OP_FIXTURES,
  SESSION_STREAM_FRAME_MEMBERS,
  SESSIONS_FRAME_FIXTURES,
  SessionRemovedFrame,
  SessionStreamFrame,
  SessionUpsertedFrame,
  STREAM_FRAME_FIXTURES,
  sessionOfTopic,
  sessionTopic,
  TOPIC_ATTRIBUTES,
  Topic,
  topicKind,
  validate,
  validateRequest,
  WorkstationPresenceFrame,
} from '../src/index.js';
import { mutations } from './mutate.js';

const streamFixtures: Record<string, Record<string, unknown>> = STREAM_FRAME_FIXTURES;
const sid = 'd3b07384-d9a0-4c6b-9f2e-1c5e2a7f8b90';

describe('the topic table', () => {
  it('names a session stream by agent and sid, and nothing else under session:', () => {
    const topic = sessionTopic('claude-code', sid);
    expect(topic).toBe(`session:claude-code:${sid}`);
    expect(validate(Topic, topic).ok).toBe(true);
    expect(topicKind(topic)).toBe('session');
    expect(sessionOfTopic(topic)).toEqual({ agent: 'claude-code', sid });
    for (const bad of [
      `session:${sid}`,
      `session:Claude:${sid}`,
      'session:codex:../x',
      `transcript_items:${sid}`,
    ]) {
      expect(validate(Topic, bad).ok, bad).toBe(false);
      expect(sessionOfTopic(bad), bad).toBeUndefined();
    }
    expect(topicKind('sessions')).toBe('sessions');
    expect(topicKind(`transcript_items:${sid}`)).toBeUndefined();
  });

  it('lets a session follow a stream (its own, the server decides) but not the list of sessions', () => {
    expect(TOPIC_ATTRIBUTES.session.roles).toEqual(['session', 'user']);
    expect(TOPIC_ATTRIBUTES.sessions.roles).toEqual(['user']);
  });

  it('names frame schemas that the JSON Schema export holds', () => {
    const defs = contractJsonSchema().$defs as Record<string, unknown>;
    for (const { frames } of Object.values(TOPIC_ATTRIBUTES))
      for (const id of frames) expect(defs[id], id).toBeDefined();
  });

  it('resumes a session stream after a seq, -1 included, and refuses a seq that cannot be one', () => {
    const { request } = OP_FIXTURES.topic_subscribe;
    expect(validateRequest({ ...request, after_seq: -1 }).ok).toBe(true);
    for (const after_seq of [-2, 1.5, '12']) {
      expect(validateRequest({ ...request, after_seq })).toMatchObject({
        ok: false,
        error: { code: 'invalid_args', field: '/after_seq' },
      });
    }
    // Cursors belonged to a topic this protocol no longer has.
    expect(validateRequest({ ...request, cursor: 's12' })).toMatchObject({
      error: { code: 'invalid_args', field: '/cursor' },
    });
  });
});

describe('the session stream frames', () => {
  it('have one fixture per frame type and no fixture without one', () => {
    expect(Object.keys(streamFixtures).sort()).toEqual(
      SESSION_STREAM_FRAME_MEMBERS.map((m) => m.$id as string).sort(),
    );
    const types = SESSION_STREAM_FRAME_MEMBERS.map((m) => m.properties.type.const);
    expect(new Set(types).size).toBe(types.length);
  });

  describe.each(SESSION_STREAM_FRAME_MEMBERS.map((schema) => [schema.$id as string, schema] as const))(
    '%s',
    (name, schema) => {
      const fixture = streamFixtures[name]!;

      it('validates, on its own and as one of the stream frames', () => {
        expect(validate(schema, fixture)).toEqual({ ok: true, value: fixture });
        expect(validate(SessionStreamFrame, fixture).ok).toBe(true);
      });

      it.each(mutations(schema as TObject, fixture))(
        '$label is refused, naming $field',
        ({ value, field }) => {
          for (const s of [schema, SessionStreamFrame] as TSchema[]) {
            const checked = validate(s, value);
            expect(checked.ok).toBe(false);
            if (checked.ok) return;
            expect(checked.error.field.startsWith(field), `${checked.error.field} for ${field}`).toBe(true);
          }
        },
      );

      it('is refused under another frame type', () => {
        const at = SESSION_STREAM_FRAME_MEMBERS.indexOf(schema);
        const other = SESSION_STREAM_FRAME_MEMBERS[(at + 1) % SESSION_STREAM_FRAME_MEMBERS.length]!;
        const renamed = { ...fixture, type: other.properties.type.const };
        expect(validate(schema, renamed).ok).toBe(false);
      });
    },
  );

  it('refuses a seq below -1 and a fractional one', () => {
    for (const seq of [-2, 2.5]) {
      expect(validate(SessionStreamFrame, { ...STREAM_FRAME_FIXTURES.MessageStartFrame, seq })).toMatchObject(
        {
          ok: false,
          error: { field: '/seq' },
        },
      );
    }
  });

  it('names the bad field of the item a frame carries', () => {
    const frame = STREAM_FRAME_FIXTURES.ToolCallFrame;
    const broken = { ...frame, item: { ...frame.item, command: 42 } };
    expect(validate(SessionStreamFrame, broken)).toMatchObject({
      ok: false,
      error: { field: '/item/command' },
    });
    const chunk = STREAM_FRAME_FIXTURES.HistoryChunkFrame;
    const [first, second] = chunk.messages;
    expect(
      validate(SessionStreamFrame, { ...chunk, messages: [first, { ...second, parent_item: '' }] }),
    ).toMatchObject({ ok: false, error: { field: '/messages/1/parent_item' } });
  });

  it('refuses a frame type the protocol does not have, naming type', () => {
    expect(
      validate(SessionStreamFrame, { ...STREAM_FRAME_FIXTURES.RunStateFrame, type: 'agent_end' }),
    ).toMatchObject({ ok: false, error: { field: '/type' } });
  });
});

describe('the sessions topic frames', () => {
  const schemas = { SessionUpsertedFrame, SessionRemovedFrame, WorkstationPresenceFrame } as const;

  describe.each(Object.entries(schemas))('%s', (name, schema) => {
    const fixture = (SESSIONS_FRAME_FIXTURES as Record<string, Record<string, unknown>>)[name]!;

    it('validates', () => {
      expect(validate(schema, fixture)).toEqual({ ok: true, value: fixture });
    });

    it.each(mutations(schema as TObject, fixture))('$label is refused, naming $field', ({ value, field }) => {
      const checked = validate(schema, value);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.error.field.startsWith(field)).toBe(true);
    });
  });
});
