// Ops that act on a session rather than read its transcript: `session_kill`, `session_env_read`,
// `session_fork_origin` and `session_last_live_remove`.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, InstanceId, Sid } from '../identifiers.js';

/** Ends a session. cairn ends the sessions it drives (opened through a workstation) by closing them
 * there; a session it only reads from disk runs outside its reach and is refused `unsupported`. The
 * request names the session, never a process: the server finds what to close itself. */
export const SessionKillArgs = Type.Object(
  {
    /** The agent's session id, or the drive's own reference for a session that has none yet. */
    sid: Sid,
    /** cairn: which agent's session, when two agents' sessions could share the id. */
    agent: Type.Optional(AgentName),
    /** Asks for an unconditional end. cairn's close is already final, so this changes nothing; it is
     * accepted so that a caller escalating after an unconfirmed end is not refused. */
    force: Type.Optional(Type.Boolean()),
  },
  { $id: 'SessionKillArgs', additionalProperties: false },
);
export type SessionKillArgs = Static<typeof SessionKillArgs>;

export const SessionKillResult = Type.Object(
  {
    /** The close reached the session's workstation, which ends the agent's process. False when the
     * workstation is not connected: the session is marked closed and will not be reattached, but no
     * process was told to stop. False is not a failure. */
    terminated: Type.Boolean(),
  },
  { $id: 'SessionKillResult' },
);
export type SessionKillResult = Static<typeof SessionKillResult>;

export const SessionKillRequest = request('session_kill', SessionKillArgs, 'SessionKillRequest');
export type SessionKillRequest = Static<typeof SessionKillRequest>;
export const SessionKillResponse = response('session_kill', SessionKillResult, 'SessionKillResponse');
export type SessionKillResponse = Static<typeof SessionKillResponse>;

/** What cairn knows of a session's environment: where it runs and as what. Never the process's
 * variables, which hold secrets and which cairn does not read. */
export const SessionEnvReadArgs = Type.Object(
  {
    sid: Sid,
    agent: Type.Optional(AgentName),
  },
  { $id: 'SessionEnvReadArgs', additionalProperties: false },
);
export type SessionEnvReadArgs = Static<typeof SessionEnvReadArgs>;

export const SessionEnvReadResult = Type.Object(
  {
    sid: Sid,
    /** The agent that runs (or wrote) the session, by adapter id or, for a driven one, its agent key. */
    agent: Type.String({ minLength: 1 }),
    instance: InstanceId,
    /** Whether this server drives the session (opened it through a workstation and has not closed it). */
    driven: Type.Boolean(),
    /** The working directory: the one it was opened in when driven, else the one its files record. */
    cwd: Type.Optional(Type.String()),
    /** The workstation a driven session runs on. */
    workstation: Type.Optional(Type.String()),
    /** How a driven session's agent is attached there (the bridge's name). */
    bridge: Type.Optional(Type.String()),
    /** The drive's reference of a driven session. */
    session_ref: Type.Optional(Type.String()),
  },
  { $id: 'SessionEnvReadResult' },
);
export type SessionEnvReadResult = Static<typeof SessionEnvReadResult>;

export const SessionEnvReadRequest = request('session_env_read', SessionEnvReadArgs, 'SessionEnvReadRequest');
export type SessionEnvReadRequest = Static<typeof SessionEnvReadRequest>;
export const SessionEnvReadResponse = response(
  'session_env_read',
  SessionEnvReadResult,
  'SessionEnvReadResponse',
);
export type SessionEnvReadResponse = Static<typeof SessionEnvReadResponse>;

/** Where a forked session stops being a copy of the one it was forked from. This server does not
 * place that seam yet: the op is answered `unsupported`. The shapes are the contract's, so a client
 * written against them keeps working once it is. */
export const SessionForkOriginArgs = Type.Object(
  {
    sid: Sid,
    agent: Type.Optional(AgentName),
  },
  { $id: 'SessionForkOriginArgs', additionalProperties: false },
);
export type SessionForkOriginArgs = Static<typeof SessionForkOriginArgs>;

export const ForkOrigin = Type.Object(
  {
    /** The session the copied records came from. */
    sid: Sid,
    /** The last copied record; the seam is just after it. */
    boundary_uuid: Type.String(),
    /** How many records were copied. */
    copied: Type.Integer({ minimum: 0 }),
  },
  { $id: 'ForkOrigin' },
);
export type ForkOrigin = Static<typeof ForkOrigin>;

export const SessionForkOriginResult = Type.Object(
  {
    /** Absent when the session is no fork, or its ancestor's files are gone. */
    origin: Type.Optional(ForkOrigin),
  },
  { $id: 'SessionForkOriginResult' },
);
export type SessionForkOriginResult = Static<typeof SessionForkOriginResult>;

export const SessionForkOriginRequest = request(
  'session_fork_origin',
  SessionForkOriginArgs,
  'SessionForkOriginRequest',
);
export type SessionForkOriginRequest = Static<typeof SessionForkOriginRequest>;
export const SessionForkOriginResponse = response(
  'session_fork_origin',
  SessionForkOriginResult,
  'SessionForkOriginResponse',
);
export type SessionForkOriginResponse = Static<typeof SessionForkOriginResponse>;

/** Drops a session from the list of those that were running when the server last saw them, the list
 * a client offers to bring back after a restart. cairn keeps no such list: whether a session is active
 * is read from its files each time, and the sessions it drives are reattached from the drive's own
 * record, which `session_kill` closes. So nothing is ever there to drop and the answer is
 * `removed: false`; as in the contract, a session that is not on the list is no error. */
export const SessionLastLiveRemoveArgs = Type.Object(
  { sid: Sid },
  { $id: 'SessionLastLiveRemoveArgs', additionalProperties: false },
);
export type SessionLastLiveRemoveArgs = Static<typeof SessionLastLiveRemoveArgs>;

export const SessionLastLiveRemoveResult = Type.Object(
  {
    /** Whether an entry was there to drop. */
    removed: Type.Boolean(),
  },
  { $id: 'SessionLastLiveRemoveResult' },
);
export type SessionLastLiveRemoveResult = Static<typeof SessionLastLiveRemoveResult>;

export const SessionLastLiveRemoveRequest = request(
  'session_last_live_remove',
  SessionLastLiveRemoveArgs,
  'SessionLastLiveRemoveRequest',
);
export type SessionLastLiveRemoveRequest = Static<typeof SessionLastLiveRemoveRequest>;
export const SessionLastLiveRemoveResponse = response(
  'session_last_live_remove',
  SessionLastLiveRemoveResult,
  'SessionLastLiveRemoveResponse',
);
export type SessionLastLiveRemoveResponse = Static<typeof SessionLastLiveRemoveResponse>;
