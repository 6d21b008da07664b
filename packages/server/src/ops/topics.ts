// `topic_subscribe` and `topic_unsubscribe`: the `sessions` topic, a session's items
// (`transcript_items:<sid>`), and a session's stream in spectral's frames (`session:<agent>:<sid>`).
import { type Role, TOPIC_ATTRIBUTES, type TopicSubscribeArgs, topicKind } from '@cairn/protocol';
import { Type } from '@sinclair/typebox';
import { cursorSeq } from '../streams.js';
import { done, fail, type OpContext, type OpHandler, sessionOf } from './context.js';

const SID = '[A-Za-z0-9][A-Za-z0-9._-]{0,199}';

/** The stream topic the web UI follows: `session:<agent>:<sid>`, resumed with `after_seq`. The
 * protocol's topic table does not list it yet, so its request is checked against this schema. */
export const SESSION_TOPIC = new RegExp(`^session:([a-z][a-z0-9-]{0,63}):(${SID})$`);

export const SessionStreamSubscribeRequest = Type.Object(
  {
    request_id: Type.String({ minLength: 1, maxLength: 128 }),
    op: Type.Literal('topic_subscribe'),
    topic: Type.String({ pattern: SESSION_TOPIC.source }),
    after_seq: Type.Optional(Type.Integer({ minimum: -1 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const SessionStreamUnsubscribeRequest = Type.Object(
  {
    request_id: Type.String({ minLength: 1, maxLength: 128 }),
    op: Type.Literal('topic_unsubscribe'),
    topic: Type.String({ pattern: SESSION_TOPIC.source }),
  },
  { additionalProperties: false },
);

type Target =
  | { kind: 'sessions' }
  | { kind: 'items'; key: string }
  | { kind: 'spectral'; key: string }
  | { kind: 'error'; error: ReturnType<typeof fail> };

function target(ctx: OpContext, topic: string): Target {
  const stream = SESSION_TOPIC.exec(topic);
  if (stream) {
    const found = sessionOf(ctx, stream[2]!, stream[1]!);
    if (!found.ok) return { kind: 'error', error: { ok: false, error: { ...found.error, field: '/topic' } } };
    return { kind: 'spectral', key: found.entry.key };
  }
  const kind = topicKind(topic);
  if (kind === undefined)
    return { kind: 'error', error: fail('topic_unknown', `no topic ${topic}`, '/topic') };
  const roles = TOPIC_ATTRIBUTES[kind].roles as readonly Role[];
  if (ctx.conn.role === undefined || !roles.includes(ctx.conn.role)) {
    return {
      kind: 'error',
      error: fail('forbidden', `a ${ctx.conn.role} connection cannot follow ${kind}`, '/topic'),
    };
  }
  if (kind === 'sessions') return { kind: 'sessions' };
  const sid = topic.slice(kind.length + 1);
  const found = sessionOf(ctx, sid, undefined);
  if (!found.ok) return { kind: 'error', error: { ok: false, error: { ...found.error, field: '/topic' } } };
  return { kind: 'items', key: found.entry.key };
}

export const topicSubscribe: OpHandler<'topic_subscribe'> = async (req, ctx) => {
  const t = target(ctx, req.topic);
  if (t.kind === 'error') return t.error;
  if (t.kind === 'sessions') {
    // The reply goes first; the snapshot follows it.
    setImmediate(() => ctx.sessions.subscribe(ctx.conn));
    return done({ topic: req.topic });
  }
  const afterSeq = resumePoint(req);
  if (afterSeq === 'bad') return fail('invalid_args', 'not a cursor this server issued', '/cursor');
  const subscribed = new Promise<boolean>((resolve) => {
    setImmediate(() => {
      ctx.streams.subscribe(t.key, ctx.conn, req.topic, t.kind, afterSeq).then(resolve, () => resolve(false));
    });
  });
  void subscribed;
  return done({ topic: req.topic });
};

function resumePoint(req: TopicSubscribeArgs & { after_seq?: number }): number | undefined | 'bad' {
  if (req.after_seq !== undefined) return req.after_seq;
  if (req.cursor === undefined) return undefined;
  return cursorSeq(req.cursor) ?? 'bad';
}

export const topicUnsubscribe: OpHandler<'topic_unsubscribe'> = async (req, ctx) => {
  const t = target(ctx, req.topic);
  if (t.kind === 'error') {
    if (t.error.error.code === 'topic_unknown') return t.error;
    return done({ topic: req.topic, was_subscribed: false });
  }
  const was =
    t.kind === 'sessions' ? ctx.sessions.unsubscribe(ctx.conn) : ctx.streams.unsubscribe(t.key, ctx.conn);
  return done({ topic: req.topic, was_subscribed: was });
};
