// A persisted message row of a chat session, as the browser receives it in history.
import { type Static, Type } from '@sinclair/typebox';
import { Count, Id, Instant, NullableAmount, NullableCount } from './fields.js';
import { ImageAttachment } from './images.js';

/** Spectral's `WireMessage` with every field. It is named `ChatWireMessage` here because the reader's
 * session stream already exports `WireMessage`: the narrower row it sends for files read from disk,
 * whose fields are a subset of these, so a reader row is a valid chat row. */
export const ChatWireMessage = Type.Object(
  {
    id: Id,
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
  { $id: 'ChatWireMessage' },
);
export type ChatWireMessage = Static<typeof ChatWireMessage>;
