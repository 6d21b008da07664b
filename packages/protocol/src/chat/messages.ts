// A persisted message row of a chat session, as the browser receives it in history.
import { type Static, Type } from '@sinclair/typebox';
import { Count, Instant, NullableAmount, NullableCount, WireId } from './fields.js';
import { ImageAttachment } from './images.js';

/** The seed's `WireMessage`: a persisted message row as the browser receives it, with every field. (The
 * reader's session stream sends a narrower row, `StreamMessageRow`, whose every value is one of these.) */
export const WireMessage = Type.Object(
  {
    id: WireId,
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: Type.String(),
    /** The agent events captured for an assistant message, one JSON document a line; may be `''`. */
    events: Type.String(),
    createdAt: Instant,
    /** Insertion order within the session, which the server's ordering follows. */
    sequence: Type.Optional(Count),
    /** A user message's images; empty or absent otherwise. */
    images: Type.Optional(Type.Array(ImageAttachment)),
    /** The figures below belong to assistant messages and are kept apart from `events`. */
    creditsUsed: Type.Optional(NullableAmount),
    outputTokens: Type.Optional(NullableCount),
    /** From the first streamed delta to `message_end`: generation time, without the wait before it. */
    durationMs: Type.Optional(NullableAmount),
    /** `outputTokens` over `durationMs`, in tokens a second, to one decimal. */
    tokensPerSecond: Type.Optional(NullableAmount),
    /** From `message_start` to the first streamed delta. */
    ttftMs: Type.Optional(NullableAmount),
  },
  { $id: 'WireMessage' },
);
export type WireMessage = Static<typeof WireMessage>;

/** The earlier name of `WireMessage`. */
export const ChatWireMessage = WireMessage;
export type ChatWireMessage = WireMessage;
