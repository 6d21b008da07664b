// Topics a connection can subscribe to, who may, and the frames each one pushes.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { AgentName, Cursor, InstanceId, type Role, Sid } from './identifiers.js';
import { TranscriptItem } from './items.js';
import { SessionHead } from './session.js';

/** Topics naming one thing for the whole server. */
export const PLAIN_TOPICS = ['sessions'] as const;
/** Topics naming one session, written `<topic>:<sid>`. */
export const SESSION_TOPICS = ['transcript_items'] as const;

export type PlainTopic = (typeof PLAIN_TOPICS)[number];
export type SessionTopic = (typeof SESSION_TOPICS)[number];
export type TopicKind = PlainTopic | SessionTopic;

const SID_CHARS = '[A-Za-z0-9][A-Za-z0-9._-]{0,199}';

export const Topic = Type.String({
  $id: 'Topic',
  pattern: `^(?:${PLAIN_TOPICS.join('|')}|(?:${SESSION_TOPICS.join('|')}):${SID_CHARS})$`,
});
export type Topic = Static<typeof Topic>;

/** How a frame folds into what a subscriber holds. `element`: the frame carries changed elements by
 * their key, and a removal is stated. `append`: the frame carries what came after the last one. */
export type TopicGranularity = 'element' | 'append';

export interface TopicAttributes {
  /** Roles that may subscribe; another role is answered `forbidden`. */
  readonly roles: readonly Role[];
  readonly granularity: TopicGranularity;
}

export const TOPIC_ATTRIBUTES = {
  sessions: { roles: ['user'], granularity: 'element' },
  // A session may follow its own transcript; which one is its own is the server's check.
  transcript_items: { roles: ['session', 'user'], granularity: 'append' },
} as const satisfies Record<TopicKind, TopicAttributes>;

/** The kind of a topic name (the part before `:`), or undefined for a name this protocol lacks. */
export function topicKind(topic: string): TopicKind | undefined {
  const head = topic.split(':', 1)[0] ?? '';
  return Object.hasOwn(TOPIC_ATTRIBUTES, head) ? (head as TopicKind) : undefined;
}

/** A frame pushed on a subscribed topic. The first after `topic_subscribe` carries `snapshot: true`
 * and the current value (or, for an appending topic, the point it starts from); later frames carry
 * changes of the same payload type, so a subscriber has one code path for both. */
export function topicFrame<T extends TSchema>(topic: TopicKind, data: T, $id: string) {
  return Type.Object(
    {
      ev: Type.Literal('topic'),
      topic: Topic,
      snapshot: Type.Optional(Type.Literal(true)),
      instance: InstanceId,
      data,
    },
    { $id, description: `frames of the ${topic} topic` },
  );
}

/** `sessions`: heads that appeared or changed (newest activity first), and sessions whose files went
 * away. The snapshot lists every session the server knows. */
export const SessionsFrame = topicFrame(
  'sessions',
  Type.Object({
    sessions: Type.Array(SessionHead),
    removed: Type.Optional(Type.Array(Type.Object({ agent: AgentName, sid: Sid }))),
  }),
  'SessionsFrame',
);
export type SessionsFrame = Static<typeof SessionsFrame>;

/** `transcript_items:<sid>`: items classified from what was appended to the session's files. Each
 * frame's `cursor` resumes exactly after it, so a client that reconnects passes the last one it saw to
 * `topic_subscribe` and gets no gap and no repeat. */
export const TranscriptItemsFrame = topicFrame(
  'transcript_items',
  Type.Object({
    sid: Sid,
    /** The subagent the items belong to; absent for the session's own. */
    agent_id: Type.Optional(Type.String()),
    items: Type.Array(TranscriptItem),
    cursor: Cursor,
  }),
  'TranscriptItemsFrame',
);
export type TranscriptItemsFrame = Static<typeof TranscriptItemsFrame>;
