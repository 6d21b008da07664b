// `topic_subscribe` / `topic_unsubscribe`.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { Topic } from '../topics.js';

/** The most items a tail may ask for: a window's page or so, never the whole of a long history. */
export const HISTORY_TAIL_MAX = 5000;

/** Only the end of a long history (see `history` below). */
export const HistoryTail = Type.Object(
  {
    tail: Type.Integer({ minimum: 0, maximum: HISTORY_TAIL_MAX }),
    /** A history of at most this many items goes out whole; absent, only a history of at most `tail`
     * items does. */
    whole_up_to: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The item a link opens on, when the subscriber holds a window of a long session: while the
     * stream opens, the preview sent (`transcript_head`, `edge: 'around'`) is the part of the session
     * around this item rather than its first or last items. */
    around: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type HistoryTail = Static<typeof HistoryTail>;

export const TopicSubscribeArgs = Type.Object(
  {
    topic: Topic,
    /** For a session's stream: resume right after this seq (the `seq` of the last frame seen; -1 for
     * a session that held no event yet) instead of starting from the history. A seq the stream never
     * reached starts from the history too. */
    after_seq: Type.Optional(Type.Integer({ minimum: -1 })),
    /** For a session's stream: how much of the history its first frames carry. `'all'` (the default)
     * is the whole of it. A tail is only its last `tail` items, when it holds more than
     * `whole_up_to` (else the whole of it, as with `'all'`): the ready frame then says
     * `hasEarlierMessages: true`, its `totalMessageCount` and `loadedMessageCount`, and a client that
     * keeps only a window of a long session reads the rest with `transcript_items_read`, at the
     * positions those counts give. Live frames and resuming with `after_seq` are the same either way. */
    history: Type.Optional(Type.Union([Type.Literal('all'), HistoryTail])),
  },
  { $id: 'TopicSubscribeArgs', additionalProperties: false },
);
export type TopicSubscribeArgs = Static<typeof TopicSubscribeArgs>;

/** Only an acknowledgement: the value itself arrives in the frames that follow (a `snapshot`, or a
 * session's history). */
export const TopicSubscribeResult = Type.Object({ topic: Topic }, { $id: 'TopicSubscribeResult' });
export type TopicSubscribeResult = Static<typeof TopicSubscribeResult>;

export const TopicSubscribeRequest = request('topic_subscribe', TopicSubscribeArgs, 'TopicSubscribeRequest');
export type TopicSubscribeRequest = Static<typeof TopicSubscribeRequest>;
export const TopicSubscribeResponse = response(
  'topic_subscribe',
  TopicSubscribeResult,
  'TopicSubscribeResponse',
);
export type TopicSubscribeResponse = Static<typeof TopicSubscribeResponse>;

export const TopicUnsubscribeArgs = Type.Object(
  { topic: Topic },
  { $id: 'TopicUnsubscribeArgs', additionalProperties: false },
);
export type TopicUnsubscribeArgs = Static<typeof TopicUnsubscribeArgs>;

export const TopicUnsubscribeResult = Type.Object(
  {
    topic: Topic,
    /** Whether the connection was subscribed; unsubscribing twice is not an error. */
    was_subscribed: Type.Boolean(),
  },
  { $id: 'TopicUnsubscribeResult' },
);
export type TopicUnsubscribeResult = Static<typeof TopicUnsubscribeResult>;

export const TopicUnsubscribeRequest = request(
  'topic_unsubscribe',
  TopicUnsubscribeArgs,
  'TopicUnsubscribeRequest',
);
export type TopicUnsubscribeRequest = Static<typeof TopicUnsubscribeRequest>;
export const TopicUnsubscribeResponse = response(
  'topic_unsubscribe',
  TopicUnsubscribeResult,
  'TopicUnsubscribeResponse',
);
export type TopicUnsubscribeResponse = Static<typeof TopicUnsubscribeResponse>;
