// `transcript_items_read`: a range of a session read as items, selected and paged.
import { type Static, Type } from '@sinclair/typebox';
import { DumpIds } from '../dump.js';
import { request, response } from '../envelope.js';
import { AgentId, AgentName, Cursor, Sid, Timestamp } from '../identifiers.js';
import { DumpPresetName, ItemTypeCounts, TranscriptItemSelector } from '../item-types.js';
import { TranscriptItem } from '../items.js';

/** Items a reader steps between: the person's prompts (`message:user:in`, a slash command they
 * typed) and what failed (a tool result recorded as failed, `system:api-error`). */
export const PositionKind = Type.Union([Type.Literal('prompt'), Type.Literal('error')], {
  $id: 'PositionKind',
});
export type PositionKind = Static<typeof PositionKind>;

/** The person's prompt among items (a `prompt` position): what they wrote, or a slash command they
 * typed. The server's positions and a reader's own counts use this one rule, so that they agree. */
export const isPromptItem = (item: { type: string }): boolean =>
  item.type === 'message:user:in' ||
  (item.type === 'notice:slash' && (item as { typed?: unknown }).typed === true);

/** The range and the selection are those of `session_dump_write`, so what a client previews is what a
 * dump with the same arguments writes. The whole session is classified and the range cut after, so a
 * result in the range still names a call made before it. */
export const TranscriptItemsReadArgs = Type.Object(
  {
    sid: Sid,
    agent: Type.Optional(AgentName),
    /** Read one subagent, from its own side, instead of the session. */
    agent_id: Type.Optional(AgentId),
    /** Inclusive bounds in time. */
    since_at: Type.Optional(Timestamp),
    until_at: Type.Optional(Timestamp),
    /** Inclusive bounds at a record, by its uuid: cuts at its position rather than its clock. One lower
     * and one upper bound at most. */
    since_uuid: Type.Optional(Type.String({ minLength: 1 })),
    until_uuid: Type.Optional(Type.String({ minLength: 1 })),
    /** Applied left to right; absent keeps everything but attachments. */
    types: Type.Optional(Type.Array(TranscriptItemSelector)),
    preset: Type.Optional(DumpPresetName),
    no_thinking: Type.Optional(Type.Boolean()),
    no_agent: Type.Optional(Type.Boolean()),
    /** How many items to answer with; the server narrows it to its own limit. */
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Continue after the previous answer's `next_cursor`. Finer than `since_uuid`, which would start
     * again at the first item of a record whose later items were already read. */
    cursor: Type.Optional(Cursor),
    /** Start at this position of the selected range (0 is its first item), instead of a cursor: a
     * client that holds a window of a long session asks for the pages either side of it. */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Answer the page that holds this record's first item, starting up to half a page before it,
     * instead of a cursor or an offset: what a link to an item far into a long session opens on. */
    around_uuid: Type.Optional(Type.String({ minLength: 1 })),
    /** Also gather the ids ledger of the items answered. */
    with_ids: Type.Optional(Type.Boolean()),
    /** Also answer where in the whole selected range (not only this page) the items of these kinds
     * sit, so that a client holding a window of a long session can step to the next one outside it. */
    positions_of: Type.Optional(Type.Array(PositionKind, { minItems: 1, maxItems: 2, uniqueItems: true })),
  },
  { $id: 'TranscriptItemsReadArgs', additionalProperties: false },
);
export type TranscriptItemsReadArgs = Static<typeof TranscriptItemsReadArgs>;

export const TranscriptItemsReadResult = Type.Object(
  {
    /** Oldest first. */
    items: Type.Array(TranscriptItem),
    /** The selection as applied, presets expanded, as a dump file states it. */
    types: Type.Array(TranscriptItemSelector),
    /** Items in the whole selected range, over all pages, and how many of each type. */
    total: Type.Integer({ minimum: 0 }),
    entries: ItemTypeCounts,
    /** Of `entries`, the calls (the `use` side) by type: a call and its result are two items but one
     * call, so a reader counts calls from here. */
    calls: Type.Optional(ItemTypeCounts),
    /** The position of this page's first item in the selected range (0 is its first item). */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Absent when this page reached the end of the range. */
    next_cursor: Type.Optional(Cursor),
    /** Present when `with_ids` was asked. */
    ids: Type.Optional(DumpIds),
    /** Present when `positions_of` was asked: for each kind asked, the positions (as `offset`
     * counts them) of its items, in order. */
    positions: Type.Optional(
      Type.Object({
        prompt: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }))),
        error: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }))),
      }),
    ),
  },
  { $id: 'TranscriptItemsReadResult' },
);
export type TranscriptItemsReadResult = Static<typeof TranscriptItemsReadResult>;

export const TranscriptItemsReadRequest = request(
  'transcript_items_read',
  TranscriptItemsReadArgs,
  'TranscriptItemsReadRequest',
);
export type TranscriptItemsReadRequest = Static<typeof TranscriptItemsReadRequest>;
export const TranscriptItemsReadResponse = response(
  'transcript_items_read',
  TranscriptItemsReadResult,
  'TranscriptItemsReadResponse',
);
export type TranscriptItemsReadResponse = Static<typeof TranscriptItemsReadResponse>;
