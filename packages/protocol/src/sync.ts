// cairn's: a workstation sends the heads of its own machine's sessions to a server, at `/sync`, so
// that the server's list covers every machine. The workstation connects out with its ticket, as on
// the agent wire. The server opens by saying what it holds of that machine; the workstation then
// sends, in numbered batches, only what differs, and each batch is acked once it is stored. A
// workstation that reconnects starts from the server's word again, so nothing held is sent twice.
import { type Static, Type } from '@sinclair/typebox';
import { AgentName, Sid } from './identifiers.js';
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

/** Server → workstation, first: every session of this machine the server holds, with its stamp. */
export const SyncStateFrame = Type.Object(
  {
    type: Type.Literal('sync_state'),
    sessions: Type.Array(Type.Object({ agent: AgentName, sid: Sid, stamp: Stamp })),
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

export const SyncClientFrame = Type.Union([SyncPutFrame, SyncRemoveFrame], { $id: 'SyncClientFrame' });
export type SyncClientFrame = Static<typeof SyncClientFrame>;

/** Server → workstation: a batch is stored. */
export const SyncAckFrame = Type.Object(
  { type: Type.Literal('sync_ack'), batch: Batch },
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
