// Projects (folders a user declares) and the chat sessions that belong to them.
import { type Static, Type } from '@sinclair/typebox';
import { WireRunState } from '../session-stream.js';
import { Count, Instant, WireId } from './fields.js';
import { WireMessage } from './messages.js';

/** A folder a user declared; the agents of its sessions run there. */
export const WireProject = Type.Object(
  {
    id: WireId,
    name: Type.String(),
    /** Absolute; the server checks it when the project is created. */
    path: Type.String({ minLength: 1 }),
    createdAt: Instant,
    updatedAt: Instant,
    sessionCount: Count,
    /** Set when the folder is bound to a Studio project. */
    studioProjectId: Type.Optional(Type.String()),
    /** The bound Studio project's name; a client shows the id when this is absent. */
    studioProjectName: Type.Optional(Type.String()),
    studioTeamId: Type.Optional(Type.String()),
    /** Some session of the project has a turn in flight. */
    hasActiveSession: Type.Optional(Type.Boolean()),
    /** Some session of the project has an agent at work. */
    busy: Type.Optional(Type.Boolean()),
  },
  { $id: 'WireProject' },
);
export type WireProject = Static<typeof WireProject>;

/** A session as a list shows it, without its messages. */
export const WireSessionSummary = Type.Object(
  {
    id: WireId,
    /** Every session belongs to a project. */
    projectId: WireId,
    title: Type.String(),
    createdAt: Instant,
    updatedAt: Instant,
    messageCount: Count,
    hasActiveTurn: Type.Optional(Type.Boolean()),
    busy: Type.Optional(Type.Boolean()),
  },
  { $id: 'WireSessionSummary' },
);
export type WireSessionSummary = Static<typeof WireSessionSummary>;

/** A session with (the latest of) its messages. */
export const WireSessionDetail = Type.Object(
  {
    id: WireId,
    /** Repeated from the summary so a deep link finds its project without another request. */
    projectId: WireId,
    title: Type.String(),
    createdAt: Instant,
    updatedAt: Instant,
    messages: Type.Array(WireMessage),
    totalMessageCount: Type.Optional(Count),
    loadedMessageCount: Type.Optional(Count),
    /** Older messages exist than the ones included. */
    hasEarlierMessages: Type.Optional(Type.Boolean()),
    /** A "fork and compact" session whose first compaction is still to come. */
    forkCompactPending: Type.Optional(Type.Boolean()),
    busy: Type.Optional(Type.Boolean()),
    /** The run state to reconcile with after a reconnect. */
    runState: Type.Optional(WireRunState),
  },
  { $id: 'WireSessionDetail' },
);
export type WireSessionDetail = Static<typeof WireSessionDetail>;
