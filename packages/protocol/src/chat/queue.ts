// The prompts waiting for the agent to be free.
import { type Static, Type } from '@sinclair/typebox';
import { Count, WireId } from './fields.js';
import { ImageAttachment } from './images.js';

/** A queued prompt, as `queue_changed` lists it. */
export const QueueItem = Type.Object(
  {
    id: WireId,
    content: Type.String(),
    images: Type.Optional(Type.Array(ImageAttachment)),
    /** Its place in the queue, from 0. */
    position: Count,
    /** When it was queued, as an ISO 8601 string. */
    createdAt: Type.String(),
  },
  { $id: 'QueueItem' },
);
export type QueueItem = Static<typeof QueueItem>;
