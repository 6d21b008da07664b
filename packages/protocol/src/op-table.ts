// The op table: for every op, who may call it, what it needs, where it runs, what it can answer, and
// the schemas of its request and reply. Authorization and validation read this table and nothing else.
import type { Static, TObject } from '@sinclair/typebox';
import type { ErrorCode } from './errors.js';
import { ROLES, type Role } from './identifiers.js';
import {
  DumpPresetsReadArgs,
  DumpPresetsReadRequest,
  DumpPresetsReadResponse,
  DumpPresetsReadResult,
  SessionDumpWriteArgs,
  SessionDumpWriteRequest,
  SessionDumpWriteResponse,
  SessionDumpWriteResult,
} from './ops/dump.js';
import { HelloArgs, HelloRequest, HelloResponse, HelloResult } from './ops/hello.js';
import { PingArgs, PingRequest, PingResponse, PingResult } from './ops/ping.js';
import {
  SessionEnvReadArgs,
  SessionEnvReadRequest,
  SessionEnvReadResponse,
  SessionEnvReadResult,
  SessionForkOriginArgs,
  SessionForkOriginRequest,
  SessionForkOriginResponse,
  SessionForkOriginResult,
  SessionKillArgs,
  SessionKillRequest,
  SessionKillResponse,
  SessionKillResult,
  SessionLastLiveRemoveArgs,
  SessionLastLiveRemoveRequest,
  SessionLastLiveRemoveResponse,
  SessionLastLiveRemoveResult,
} from './ops/session-control.js';
import {
  SessionHandoffPreviewArgs,
  SessionHandoffPreviewRequest,
  SessionHandoffPreviewResponse,
  SessionHandoffPreviewResult,
} from './ops/session-handoff.js';
import {
  SessionLinksReadArgs,
  SessionLinksReadRequest,
  SessionLinksReadResponse,
  SessionLinksReadResult,
} from './ops/session-links.js';
import {
  SessionListArgs,
  SessionListRequest,
  SessionListResponse,
  SessionListResult,
} from './ops/session-list.js';
import {
  SessionMarksReadArgs,
  SessionMarksReadRequest,
  SessionMarksReadResponse,
  SessionMarksReadResult,
  SessionMarksWriteArgs,
  SessionMarksWriteRequest,
  SessionMarksWriteResponse,
  SessionMarksWriteResult,
} from './ops/session-marks.js';
import {
  SessionSearchArgs,
  SessionSearchRequest,
  SessionSearchResponse,
  SessionSearchResult,
} from './ops/session-search.js';
import {
  SessionSummaryReadArgs,
  SessionSummaryReadRequest,
  SessionSummaryReadResponse,
  SessionSummaryReadResult,
} from './ops/session-summary.js';
import { ShutdownArgs, ShutdownRequest, ShutdownResponse, ShutdownResult } from './ops/shutdown.js';
import {
  TopicSubscribeArgs,
  TopicSubscribeRequest,
  TopicSubscribeResponse,
  TopicSubscribeResult,
  TopicUnsubscribeArgs,
  TopicUnsubscribeRequest,
  TopicUnsubscribeResponse,
  TopicUnsubscribeResult,
} from './ops/topics.js';
import {
  TranscriptItemsReadArgs,
  TranscriptItemsReadRequest,
  TranscriptItemsReadResponse,
  TranscriptItemsReadResult,
} from './ops/transcript-items-read.js';
import {
  TranscriptReadArgs,
  TranscriptReadRequest,
  TranscriptReadResponse,
  TranscriptReadResult,
} from './ops/transcript-read.js';
import { UsageReadArgs, UsageReadRequest, UsageReadResponse, UsageReadResult } from './ops/usage.js';

/** `common` is the transport level every client uses (greet, ping, subscribe, stop); `control` reads
 * and writes sessions. */
export type Plane = 'common' | 'control';

/** `instance-local` ops answer about one server's files and processes, so in a group of servers they
 * run where the session lives; `cluster` ops can be answered by whichever server is asked. */
export type Locality = 'instance-local' | 'cluster';

export interface OpAttributes {
  readonly plane: Plane;
  /** Roles that may call the op; any other gets `forbidden`. */
  readonly roles: readonly Role[];
  /** The op needs the identity `hello` settles; before it, `hello_required`. */
  readonly needs_hello: boolean;
  readonly locality: Locality;
  /** Set when the role narrows what the reply contains rather than whether the call is allowed: a
   * `session` reads its own transcript, a `user` any. */
  readonly scope?: 'role';
  /** The codes particular to the op. Those its attributes imply (`invalid_args` always,
   * `hello_required` with `needs_hello`, `forbidden` when some role is left out) are not repeated here:
   * `opErrors` adds them, so a changed attribute cannot leave the list stale. Connection-level codes
   * (`bad_request`, `unknown_op`, `internal_error`) can answer any op and are in neither. */
  readonly errors: readonly ErrorCode[];
}

const ALL_ROLES = ROLES;
/** An agent's session speaking for itself (role `session`) and a person. */
const AGENT_AND_USER = ['session', 'user'] as const;
const USER_ONLY = ['user'] as const;

export const OP_ATTRIBUTES = {
  // --- common ---
  // `hello` and `ping` answer about the server that was reached, before any identity exists.
  hello: {
    plane: 'common',
    roles: ALL_ROLES,
    needs_hello: false,
    locality: 'cluster',
    errors: [],
  },
  ping: {
    plane: 'common',
    roles: ALL_ROLES,
    needs_hello: false,
    locality: 'cluster',
    errors: [],
  },
  // Which role may hold which topic is the topic table's answer, hence `forbidden` with every role
  // allowed here; `not_found` is a session topic naming no session.
  topic_subscribe: {
    plane: 'common',
    roles: ALL_ROLES,
    needs_hello: true,
    locality: 'cluster',
    errors: ['forbidden', 'topic_unknown', 'not_found'],
  },
  topic_unsubscribe: {
    plane: 'common',
    roles: ALL_ROLES,
    needs_hello: true,
    locality: 'cluster',
    errors: ['topic_unknown'],
  },
  shutdown: {
    plane: 'common',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },

  // --- control: finding sessions ---
  session_list: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },
  session_search: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },
  // cairn's own: a person's stars and tags, kept by the server that lists the session.
  session_marks_read: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },
  // `not_found`: no session of that agent and id is listed.
  session_marks_write: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found'],
  },
  // cairn's own: which session carries on from which (hand-offs and forks), in cairn's own state.
  session_links_read: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },
  // cairn's own: the hand-off document a session's items make, measured before it is sent.
  session_handoff_preview: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found'],
  },

  // cairn's own: tokens and cost over every session, by period, session or billing window.
  usage_read: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },

  // --- control: reading one session ---
  // `scope: 'role'`: a session connection reads its own session and is `forbidden` any other.
  session_summary_read: {
    plane: 'control',
    roles: AGENT_AND_USER,
    needs_hello: true,
    locality: 'instance-local',
    scope: 'role',
    errors: ['not_found'],
  },
  transcript_read: {
    plane: 'control',
    roles: AGENT_AND_USER,
    needs_hello: true,
    locality: 'instance-local',
    scope: 'role',
    errors: ['not_found'],
  },
  transcript_items_read: {
    plane: 'control',
    roles: AGENT_AND_USER,
    needs_hello: true,
    locality: 'instance-local',
    scope: 'role',
    errors: ['not_found'],
  },

  // --- control: dumps ---
  session_dump_write: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found'],
  },
  dump_presets_read: {
    plane: 'control',
    roles: AGENT_AND_USER,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },

  // --- control: acting on a session ---
  // `unsupported`: a session this server does not drive.
  session_kill: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found', 'unsupported'],
  },
  session_env_read: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found'],
  },
  // Answered `unsupported` until this server places a fork's seam.
  session_fork_origin: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: ['not_found', 'unsupported'],
  },
  session_last_live_remove: {
    plane: 'control',
    roles: USER_ONLY,
    needs_hello: true,
    locality: 'instance-local',
    errors: [],
  },
} as const satisfies Record<string, OpAttributes>;

export type OpName = keyof typeof OP_ATTRIBUTES;
export const OP_NAMES = Object.keys(OP_ATTRIBUTES) as OpName[];

export interface OpSchemas {
  readonly args: TObject;
  readonly result: TObject;
  readonly request: TObject;
  readonly response: TObject;
}

/** The schemas of each op. `request` and `response` are what travels; `args` and `result` are the
 * op's own part of them, for clients that build requests field by field. */
export const OP_SCHEMAS = {
  hello: { args: HelloArgs, result: HelloResult, request: HelloRequest, response: HelloResponse },
  ping: { args: PingArgs, result: PingResult, request: PingRequest, response: PingResponse },
  topic_subscribe: {
    args: TopicSubscribeArgs,
    result: TopicSubscribeResult,
    request: TopicSubscribeRequest,
    response: TopicSubscribeResponse,
  },
  topic_unsubscribe: {
    args: TopicUnsubscribeArgs,
    result: TopicUnsubscribeResult,
    request: TopicUnsubscribeRequest,
    response: TopicUnsubscribeResponse,
  },
  shutdown: {
    args: ShutdownArgs,
    result: ShutdownResult,
    request: ShutdownRequest,
    response: ShutdownResponse,
  },
  session_list: {
    args: SessionListArgs,
    result: SessionListResult,
    request: SessionListRequest,
    response: SessionListResponse,
  },
  session_search: {
    args: SessionSearchArgs,
    result: SessionSearchResult,
    request: SessionSearchRequest,
    response: SessionSearchResponse,
  },
  session_marks_read: {
    args: SessionMarksReadArgs,
    result: SessionMarksReadResult,
    request: SessionMarksReadRequest,
    response: SessionMarksReadResponse,
  },
  session_marks_write: {
    args: SessionMarksWriteArgs,
    result: SessionMarksWriteResult,
    request: SessionMarksWriteRequest,
    response: SessionMarksWriteResponse,
  },
  session_links_read: {
    args: SessionLinksReadArgs,
    result: SessionLinksReadResult,
    request: SessionLinksReadRequest,
    response: SessionLinksReadResponse,
  },
  session_handoff_preview: {
    args: SessionHandoffPreviewArgs,
    result: SessionHandoffPreviewResult,
    request: SessionHandoffPreviewRequest,
    response: SessionHandoffPreviewResponse,
  },
  usage_read: {
    args: UsageReadArgs,
    result: UsageReadResult,
    request: UsageReadRequest,
    response: UsageReadResponse,
  },
  session_summary_read: {
    args: SessionSummaryReadArgs,
    result: SessionSummaryReadResult,
    request: SessionSummaryReadRequest,
    response: SessionSummaryReadResponse,
  },
  transcript_read: {
    args: TranscriptReadArgs,
    result: TranscriptReadResult,
    request: TranscriptReadRequest,
    response: TranscriptReadResponse,
  },
  transcript_items_read: {
    args: TranscriptItemsReadArgs,
    result: TranscriptItemsReadResult,
    request: TranscriptItemsReadRequest,
    response: TranscriptItemsReadResponse,
  },
  session_dump_write: {
    args: SessionDumpWriteArgs,
    result: SessionDumpWriteResult,
    request: SessionDumpWriteRequest,
    response: SessionDumpWriteResponse,
  },
  dump_presets_read: {
    args: DumpPresetsReadArgs,
    result: DumpPresetsReadResult,
    request: DumpPresetsReadRequest,
    response: DumpPresetsReadResponse,
  },
  session_kill: {
    args: SessionKillArgs,
    result: SessionKillResult,
    request: SessionKillRequest,
    response: SessionKillResponse,
  },
  session_env_read: {
    args: SessionEnvReadArgs,
    result: SessionEnvReadResult,
    request: SessionEnvReadRequest,
    response: SessionEnvReadResponse,
  },
  session_fork_origin: {
    args: SessionForkOriginArgs,
    result: SessionForkOriginResult,
    request: SessionForkOriginRequest,
    response: SessionForkOriginResponse,
  },
  session_last_live_remove: {
    args: SessionLastLiveRemoveArgs,
    result: SessionLastLiveRemoveResult,
    request: SessionLastLiveRemoveRequest,
    response: SessionLastLiveRemoveResponse,
  },
} as const satisfies Record<OpName, OpSchemas>;

/** The request, reply and reply-failure types of each op, for typed clients and handlers. */
export type OpRequest<Op extends OpName> = Static<(typeof OP_SCHEMAS)[Op]['request']>;
export type OpResponse<Op extends OpName> = Static<(typeof OP_SCHEMAS)[Op]['response']>;
export type OpArgs<Op extends OpName> = Static<(typeof OP_SCHEMAS)[Op]['args']>;
export type OpResult<Op extends OpName> = Static<(typeof OP_SCHEMAS)[Op]['result']>;

export interface OpSpec<Op extends OpName = OpName> {
  readonly op: Op;
  readonly attributes: OpAttributes;
  readonly args: (typeof OP_SCHEMAS)[Op]['args'];
  readonly result: (typeof OP_SCHEMAS)[Op]['result'];
  readonly request: (typeof OP_SCHEMAS)[Op]['request'];
  readonly response: (typeof OP_SCHEMAS)[Op]['response'];
}

export function isOpName(op: unknown): op is OpName {
  return typeof op === 'string' && Object.hasOwn(OP_ATTRIBUTES, op);
}

/** Everything the table says about one op. */
export function opSpec<Op extends OpName>(op: Op): OpSpec<Op> {
  const schemas = OP_SCHEMAS[op];
  return {
    op,
    attributes: OP_ATTRIBUTES[op],
    args: schemas.args,
    result: schemas.result,
    request: schemas.request,
    response: schemas.response,
  };
}

/** Whether a connection speaking `role` may call `op`. */
export function isRoleAllowed(op: OpName, role: Role): boolean {
  return (OP_ATTRIBUTES[op].roles as readonly Role[]).includes(role);
}

/** The codes an op's attributes imply, which its `errors` leaves out. */
export function impliedErrors(attributes: OpAttributes): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_args'];
  if (attributes.needs_hello) codes.push('hello_required');
  if (attributes.roles.length < ROLES.length) codes.push('forbidden');
  return codes;
}

/** Every code an op may answer besides the connection-level ones: those its attributes imply, then
 * its own. */
export function opErrors(op: OpName): ErrorCode[] {
  const attributes: OpAttributes = OP_ATTRIBUTES[op];
  return [...new Set<ErrorCode>([...impliedErrors(attributes), ...attributes.errors])];
}
