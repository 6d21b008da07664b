// `topic_subscribe` / `topic_unsubscribe`.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { Topic } from '../topics.js';

export const TopicSubscribeArgs = Type.Object(
  {
    topic: Topic,
    /** For a session's stream: resume right after this seq (the `seq` of the last frame seen; -1 for
     * a session that held no event yet) instead of starting from the history. A seq the stream never
     * reached starts from the history too. */
    after_seq: Type.Optional(Type.Integer({ minimum: -1 })),
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
