// `topic_subscribe` and `topic_unsubscribe`: the `sessions` topic and a session's stream
// (`session:<agent>:<sid>`), as the protocol's topic table has them.
import { type Role, sessionOfTopic, TOPIC_ATTRIBUTES, topicKind } from '@cairn/protocol';
import {
  done,
  type Failure,
  fail,
  mayUseWorkstations,
  type OpContext,
  type OpHandler,
  sessionOf,
} from './context.js';

type Target = { kind: 'sessions' } | { kind: 'session'; key: string } | { kind: 'error'; error: Failure };

async function target(ctx: OpContext, topic: string): Promise<Target> {
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
  const named = sessionOfTopic(topic);
  if (!named) return { kind: 'error', error: fail('topic_unknown', `no topic ${topic}`, '/topic') };
  const found = await sessionOf(ctx, named.sid, named.agent);
  if (!found.ok) return { kind: 'error', error: { ok: false, error: { ...found.error, field: '/topic' } } };
  return { kind: 'session', key: found.entry.key };
}

export const topicSubscribe: OpHandler<'topic_subscribe'> = async (req, ctx) => {
  const t = await target(ctx, req.topic);
  if (t.kind === 'error') return t.error;
  if (t.kind === 'sessions') {
    // A member of a team's server follows the synced sessions of the machines they may use only.
    const catalog = ctx.access === undefined || ctx.conn.person?.role === 'admin';
    ctx.sessions.subscribe(ctx.conn, { catalog, mayUse: await mayUseWorkstations(ctx) });
    // The list is where a search is typed: its thread starts now, not with the first search.
    ctx.catalog.warmSearch();
  } else {
    // The reply goes first; the history follows it.
    // A stream that cannot open tells its subscriber why; the catch is only the last guard of the
    // daemon, which an unhandled rejection would end.
    setImmediate(
      () => void ctx.streams.subscribe(t.key, ctx.conn, req.after_seq, req.history).catch(() => false),
    );
  }
  return done({ topic: req.topic });
};

export const topicUnsubscribe: OpHandler<'topic_unsubscribe'> = async (req, ctx) => {
  const t = await target(ctx, req.topic);
  if (t.kind === 'error') {
    if (t.error.error.code === 'topic_unknown') return t.error;
    return done({ topic: req.topic, was_subscribed: false });
  }
  const was =
    t.kind === 'sessions' ? ctx.sessions.unsubscribe(ctx.conn) : ctx.streams.unsubscribe(t.key, ctx.conn);
  return done({ topic: req.topic, was_subscribed: was });
};
