// cairn's: a workstation sends the heads of its own machine's sessions, and their search documents,
// to a server, at `/sync`, so that the server's list and search cover every machine. The workstation connects out with its ticket, as on
// the agent wire. The server opens by saying what it holds of that machine; the workstation then
// sends, in numbered batches, only what differs, and each batch is acked once it is stored. A
// workstation that reconnects starts from the server's word again, so nothing held is sent twice.
import { type Static, Type } from '@sinclair/typebox';
import { AgentName, Sid, Timestamp } from './identifiers.js';
import { TranscriptItemType } from './item-types.js';
import { SearchTarget } from './ops/session-search.js';
import { SessionHead } from './session.js';

/** The path of the socket, beside `/agent`. */
export const SYNC_PATH = '/sync';

/** Past this a frame is refused (the socket closes with 1009); a workstation keeps its batches under it. */
export const SYNC_FRAME_MAX_BYTES = 8 * 1024 * 1024;

/** Sessions in one batch, at most. */
export const SYNC_BATCH_MAX = 500;

/** One session's version: whatever the workstation makes of it, compared for equality only. */
const Stamp = Type.String({ minLength: 1, maxLength: 128 });

const SessionRef = Type.Object({ agent: AgentName, sid: Sid }, { additionalProperties: false });

/** A session as synced: its head as the workstation lists it (its paths are that machine's). */
export const SyncedSession = Type.Object(
  { agent: AgentName, sid: Sid, stamp: Stamp, head: SessionHead },
  { $id: 'SyncedSession', additionalProperties: false },
);
export type SyncedSession = Static<typeof SyncedSession>;

/** Documents in one frame, at most. */
export const SYNC_DOCS_MAX = 1000;

/**
 * What the server holds of a session's search documents: how many, and the range of the
 * workstation's own document rows they came from (its index's ids, opaque to the server), which
 * tells the workstation which of its documents are new since.
 */
export const SyncedDocsState = Type.Object(
  { count: Type.Integer({ minimum: 0 }), low: Type.Integer(), high: Type.Integer() },
  { $id: 'SyncedDocsState', additionalProperties: false },
);
export type SyncedDocsState = Static<typeof SyncedDocsState>;

/** Server → workstation, first: every session of this machine the server holds, with its stamp. */
export const SyncStateFrame = Type.Object(
  {
    type: Type.Literal('sync_state'),
    sessions: Type.Array(
      Type.Object({ agent: AgentName, sid: Sid, stamp: Stamp, docs: Type.Optional(SyncedDocsState) }),
    ),
  },
  { $id: 'SyncStateFrame' },
);
export type SyncStateFrame = Static<typeof SyncStateFrame>;

const Batch = Type.Integer({ minimum: 1 });

/** Workstation → server: sessions new or changed since the server's word. */
export const SyncPutFrame = Type.Object(
  {
    type: Type.Literal('sync_put'),
    batch: Batch,
    sessions: Type.Array(SyncedSession, { maxItems: SYNC_BATCH_MAX }),
  },
  { $id: 'SyncPutFrame', additionalProperties: false },
);
export type SyncPutFrame = Static<typeof SyncPutFrame>;

/** Workstation → server: sessions gone from the machine. */
export const SyncRemoveFrame = Type.Object(
  {
    type: Type.Literal('sync_remove'),
    batch: Batch,
    sessions: Type.Array(SessionRef, { maxItems: SYNC_BATCH_MAX }),
  },
  { $id: 'SyncRemoveFrame', additionalProperties: false },
);
export type SyncRemoveFrame = Static<typeof SyncRemoveFrame>;

/** One searchable item of a synced session, as the workstation's index holds it. */
export const SyncedDoc = Type.Object(
  {
    /** Unique within the session: which item of which lane. */
    key: Type.String({ minLength: 1, maxLength: 1024 }),
    item_uuid: Type.String({ minLength: 1, maxLength: 1024 }),
    item_type: TranscriptItemType,
    target: SearchTarget,
    agent_id: Type.Optional(Type.String({ maxLength: 256 })),
    at: Type.Optional(Timestamp),
    text: Type.String({ maxLength: 64 * 1024 }),
  },
  { $id: 'SyncedDoc', additionalProperties: false },
);
export type SyncedDoc = Static<typeof SyncedDoc>;

/**
 * Workstation → server: search documents of a session the server holds. With `replace`, they are
 * the first of all it has (those held before are dropped); else they add to those held. `low` and
 * `high` are the range of the workstation's rows the server then holds.
 */
export const SyncDocsFrame = Type.Object(
  {
    type: Type.Literal('sync_docs'),
    batch: Batch,
    agent: AgentName,
    sid: Sid,
    replace: Type.Boolean(),
    low: Type.Integer(),
    high: Type.Integer(),
    docs: Type.Array(SyncedDoc, { maxItems: SYNC_DOCS_MAX }),
  },
  { $id: 'SyncDocsFrame', additionalProperties: false },
);
export type SyncDocsFrame = Static<typeof SyncDocsFrame>;

export const SyncClientFrame = Type.Union([SyncPutFrame, SyncRemoveFrame, SyncDocsFrame], {
  $id: 'SyncClientFrame',
});
export type SyncClientFrame = Static<typeof SyncClientFrame>;

/** Server → workstation: a batch is stored; for documents, what the server then holds of them. */
export const SyncAckFrame = Type.Object(
  { type: Type.Literal('sync_ack'), batch: Batch, docs: Type.Optional(SyncedDocsState) },
  { $id: 'SyncAckFrame' },
);
export type SyncAckFrame = Static<typeof SyncAckFrame>;

/** Server → workstation: a frame was not taken, and why; nothing of it was stored. */
export const SyncRefusedFrame = Type.Object(
  { type: Type.Literal('sync_refused'), batch: Type.Optional(Batch), reason: Type.String() },
  { $id: 'SyncRefusedFrame' },
);
export type SyncRefusedFrame = Static<typeof SyncRefusedFrame>;

export type SyncServerFrame = SyncStateFrame | SyncAckFrame | SyncRefusedFrame;
