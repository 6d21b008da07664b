// Topics a connection can subscribe to, who may, and the frames each one pushes.
import { type Static, Type } from '@sinclair/typebox';
import { AgentName, type Role, Sid, Timestamp } from './identifiers.js';
import { SessionHead } from './session.js';

const AGENT_CHARS = '[a-z][a-z0-9-]{0,63}';
const SID_CHARS = '[A-Za-z0-9][A-Za-z0-9._-]{0,199}';

/** Topics naming one thing for the whole server. */
export const PLAIN_TOPICS = ['sessions'] as const;
/** Topics naming one session, written `<topic>:<agent>:<sid>`. */
export const SESSION_TOPICS = ['session'] as const;

export type PlainTopic = (typeof PLAIN_TOPICS)[number];
export type SessionTopic = (typeof SESSION_TOPICS)[number];
export type TopicKind = PlainTopic | SessionTopic;

export const Topic = Type.String({
  $id: 'Topic',
  pattern: `^(?:${PLAIN_TOPICS.join('|')}|(?:${SESSION_TOPICS.join('|')}):${AGENT_CHARS}:${SID_CHARS})$`,
});
export type Topic = Static<typeof Topic>;

/** How a frame folds into what a subscriber holds. `element`: the frame carries changed elements by
 * their key, and a removal is stated. `append`: the frame carries what came after the last one. */
export type TopicGranularity = 'element' | 'append';

export interface TopicAttributes {
  /** Roles that may subscribe; another role is answered `forbidden`. */
  readonly roles: readonly Role[];
  readonly granularity: TopicGranularity;
  /** The `$id`s of the schemas of the frames the topic pushes. */
  readonly frames: readonly string[];
}

export const TOPIC_ATTRIBUTES = {
  sessions: {
    roles: ['user'],
    granularity: 'element',
    frames: ['SessionUpsertedFrame', 'SessionRemovedFrame', 'WorkstationPresenceFrame'],
  },
  // A session may follow its own stream; which one is its own is the server's check.
  session: { roles: ['session', 'user'], granularity: 'append', frames: ['SessionStreamFrame'] },
} as const satisfies Record<TopicKind, TopicAttributes>;

/** The kind of a topic name (the part before the first `:`), or undefined for a name this protocol
 * lacks. */
export function topicKind(topic: string): TopicKind | undefined {
  const head = topic.split(':', 1)[0] ?? '';
  return Object.hasOwn(TOPIC_ATTRIBUTES, head) ? (head as TopicKind) : undefined;
}

/** The topic of one session's stream. */
export const sessionTopic = (agent: string, sid: string): string => `session:${agent}:${sid}`;

const SESSION_TOPIC = new RegExp(`^session:(${AGENT_CHARS}):(${SID_CHARS})$`);

/** The session a `session:<agent>:<sid>` topic names, or undefined for any other name. */
export function sessionOfTopic(topic: string): { agent: string; sid: string } | undefined {
  const m = SESSION_TOPIC.exec(topic);
  return m ? { agent: m[1]!, sid: m[2]! } : undefined;
}

/** `sessions`: one session appeared or changed since the subscriber came (`session_list` says what
 * was there before). */
export const SessionUpsertedFrame = Type.Object(
  { type: Type.Literal('session_upserted'), head: SessionHead },
  { $id: 'SessionUpsertedFrame' },
);
export type SessionUpsertedFrame = Static<typeof SessionUpsertedFrame>;

/** `sessions`: the files of one session went away (on the workstation named, for a synced one). */
export const SessionRemovedFrame = Type.Object(
  {
    type: Type.Literal('session_removed'),
    agent: AgentName,
    sid: Sid,
    workstation: Type.Optional(Type.String()),
  },
  { $id: 'SessionRemovedFrame' },
);
export type SessionRemovedFrame = Static<typeof SessionRemovedFrame>;

/** `sessions`: whether a workstation whose sessions are synced here is connected to the server now
 * (to any of its processes), sent once for each such workstation the subscriber may see when it
 * comes, then each time that changes. A workstation that stopped without saying so counts as gone
 * once no process has heard from it for a while. */
export const WorkstationPresenceFrame = Type.Object(
  {
    type: Type.Literal('workstation_presence'),
    workstation: Type.String(),
    online: Type.Boolean(),
    /** When a server process last heard from it. */
    heard_at: Type.Optional(Timestamp),
  },
  { $id: 'WorkstationPresenceFrame' },
);
export type WorkstationPresenceFrame = Static<typeof WorkstationPresenceFrame>;
