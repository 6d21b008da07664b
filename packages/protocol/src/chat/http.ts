// The chat's HTTP bodies: the agents one can chat with, projects, and a project's chat sessions
// (new, or continued from a session the agent already has). All of it is cairn's own: spectral's
// wire defines the rows (`WireProject`, `WireSessionSummary`) but not these routes.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { SessionHandoffPreviewArgs } from '../ops/session-handoff.js';
import { SessionLink, SessionLinkVia } from '../ops/session-links.js';
import { BridgeInfoSchema } from './agent-wire-shapes.js';
import { ChatFilesQuery, ChatFilesResponse } from './composer.js';
import { Id } from './fields.js';
import { PermissionRulesReply } from './permission-rule-frames.js';
import { WireProject, WireSessionSummary } from './projects.js';
import {
  ChatSessionArchiveRequest,
  ChatSessionDeleteRequest,
  ChatSessionDeleteResponse,
  ChatSessionRenameRequest,
} from './session-manage.js';

/** A query or body that names a workstation; the daemon's own (`local`) when it names none. */
const OnWorkstation = { workstation: Type.Optional(Id) };

/** cairn's: a chat session's row, with the agent that runs it, that agent's own id for the session
 * (null until the agent has given one), and the workstation it runs on and whether that one is
 * connected now (an offline one's sessions keep their history). */
export const ChatSessionSummary = Type.Object(
  {
    ...WireSessionSummary.properties,
    agent: Id,
    nativeSessionId: Type.Union([Id, Type.Null()]),
    workstation: Id,
    workstationOnline: Type.Boolean(),
    /** cairn's: the person archived it; the default list leaves it out. */
    archived: Type.Optional(Type.Boolean()),
  },
  { $id: 'ChatSessionSummary' },
);
export type ChatSessionSummary = Static<typeof ChatSessionSummary>;

/** `GET /api/agents?workstation=…`: one workstation's roster, as it reports it. */
export const ChatAgentsQuery = Type.Object(OnWorkstation, { $id: 'ChatAgentsQuery' });
export type ChatAgentsQuery = Static<typeof ChatAgentsQuery>;

export const ChatAgentsResponse = Type.Object(
  { agents: Type.Array(BridgeInfoSchema) },
  { $id: 'ChatAgentsResponse' },
);
export type ChatAgentsResponse = Static<typeof ChatAgentsResponse>;

/** `POST /api/agents/install`: installs an agent's pinned adapter on a workstation. */
export const ChatAgentInstallRequest = Type.Object(
  { agent: Id, ...OnWorkstation },
  { $id: 'ChatAgentInstallRequest' },
);
export type ChatAgentInstallRequest = Static<typeof ChatAgentInstallRequest>;

export const ChatAgentInstallResponse = Type.Object(
  { ok: Type.Literal(true) },
  { $id: 'ChatAgentInstallResponse' },
);
export type ChatAgentInstallResponse = Static<typeof ChatAgentInstallResponse>;

/** `GET /api/agents/install?agent=…&workstation=…`: how an install started from a page is going.
 * `phase` is null when none was started for that agent since the daemon started. */
export const ChatAgentInstallProgressResponse = Type.Object(
  {
    phase: Type.Union([
      Type.Literal('preparing'),
      Type.Literal('downloading'),
      Type.Literal('checking'),
      Type.Literal('done'),
      Type.Literal('failed'),
      Type.Null(),
    ]),
    /** npm's latest output lines, oldest first (at most 20). */
    lines: Type.Array(Type.String()),
    error: Type.Optional(Type.String()),
  },
  { $id: 'ChatAgentInstallProgressResponse' },
);
export type ChatAgentInstallProgressResponse = Static<typeof ChatAgentInstallProgressResponse>;

/** One machine agents can run on: the daemon's own, or one that connects with a ticket. */
export const ChatWorkstation = Type.Object(
  {
    name: Id,
    /** The workstation inside the daemon's process. */
    local: Type.Boolean(),
    online: Type.Boolean(),
    /** What it reported when it last connected; empty while it never has. */
    agents: Type.Array(BridgeInfoSchema),
    /** cairn's: what it says is wrong with its config.json, when something is. */
    configProblems: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'ChatWorkstation' },
);
export type ChatWorkstation = Static<typeof ChatWorkstation>;

/** `GET /api/workstations`: every workstation known, the local one first, online or not. */
export const ChatWorkstationsResponse = Type.Object(
  { workstations: Type.Array(ChatWorkstation) },
  { $id: 'ChatWorkstationsResponse' },
);
export type ChatWorkstationsResponse = Static<typeof ChatWorkstationsResponse>;

/** `GET /api/projects`. */
export const ChatProjectsResponse = Type.Object(
  { projects: Type.Array(WireProject) },
  { $id: 'ChatProjectsResponse' },
);
export type ChatProjectsResponse = Static<typeof ChatProjectsResponse>;

/** `POST /api/projects`: declare a folder. The path must be absolute and exist; the name defaults to
 * the folder's. */
export const ChatProjectCreateRequest = Type.Object(
  {
    path: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ minLength: 1 })),
    ...OnWorkstation,
  },
  { $id: 'ChatProjectCreateRequest' },
);
export type ChatProjectCreateRequest = Static<typeof ChatProjectCreateRequest>;

export const ChatProjectCreateResponse = Type.Object(
  { project: WireProject },
  { $id: 'ChatProjectCreateResponse' },
);
export type ChatProjectCreateResponse = Static<typeof ChatProjectCreateResponse>;

/** `GET /api/sessions?projectId=…`: one project's chat sessions; every project's without it.
 * Archived ones are left out, and are the only ones listed with `archived=true`. */
export const ChatSessionsQuery = Type.Object(
  {
    projectId: Type.Optional(Id),
    archived: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  },
  { $id: 'ChatSessionsQuery' },
);
export type ChatSessionsQuery = Static<typeof ChatSessionsQuery>;

export const ChatSessionsResponse = Type.Object(
  { sessions: Type.Array(ChatSessionSummary) },
  { $id: 'ChatSessionsResponse' },
);
export type ChatSessionsResponse = Static<typeof ChatSessionsResponse>;

/** `POST /api/sessions`: a new chat with an agent of the roster, in a project. */
export const ChatSessionCreateRequest = Type.Object(
  { projectId: Id, agent: Id, ...OnWorkstation },
  { $id: 'ChatSessionCreateRequest' },
);
export type ChatSessionCreateRequest = Static<typeof ChatSessionCreateRequest>;

export const ChatSessionCreateResponse = Type.Object(
  { session: ChatSessionSummary },
  { $id: 'ChatSessionCreateResponse' },
);
export type ChatSessionCreateResponse = Static<typeof ChatSessionCreateResponse>;

/** `POST /api/sessions/continue`: carry on a session the agent already has (one started in a
 * terminal, say), by its native id, in the folder it ran in. */
export const ChatSessionContinueRequest = Type.Object(
  { agent: Id, nativeSessionId: Id, cwd: Type.String({ minLength: 1 }), ...OnWorkstation },
  { $id: 'ChatSessionContinueRequest' },
);
export type ChatSessionContinueRequest = Static<typeof ChatSessionContinueRequest>;

export const ChatSessionContinueResponse = Type.Object(
  { session: ChatSessionSummary },
  { $id: 'ChatSessionContinueResponse' },
);
export type ChatSessionContinueResponse = Static<typeof ChatSessionContinueResponse>;

/** `POST /api/sessions/handoff`, cairn's: a new chat whose first prompt is the hand-off document
 * of another session, built by the daemon from the arguments `session_handoff_preview` measured.
 * It answers once the new session took the document, with the link kept between the two. */
export const ChatSessionHandoffRequest = Type.Object(
  {
    /** The agent of the roster that carries the work on. */
    agent: Id,
    /** The source session (`sid`, `agent`) and the selection of its items. */
    handoff: SessionHandoffPreviewArgs,
    /** The project folder to run in; the source's own when absent. */
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * How a fork is made. `agent`: the agent's own fork, when the new session is of the source's
     * agent and that agent takes a cut at the item (Claude Code, from a prompt), the prompt asked
     * again unless another is given; a hand-off otherwise. `handoff`, the default: a document.
     */
    via: Type.Optional(SessionLinkVia),
    ...OnWorkstation,
  },
  { $id: 'ChatSessionHandoffRequest' },
);
export type ChatSessionHandoffRequest = Static<typeof ChatSessionHandoffRequest>;

export const ChatSessionHandoffResponse = Type.Object(
  { session: ChatSessionSummary, link: SessionLink },
  { $id: 'ChatSessionHandoffResponse' },
);
export type ChatSessionHandoffResponse = Static<typeof ChatSessionHandoffResponse>;

/** Any of the routes above, failing: what went wrong, for people. */
export const ChatErrorResponse = Type.Object({ error: Type.String() }, { $id: 'ChatErrorResponse' });
export type ChatErrorResponse = Static<typeof ChatErrorResponse>;

export interface ChatRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The JSON body a POST sends, or the query a GET reads. */
  readonly request?: TSchema;
  /** What a success answers; a failure answers `ChatErrorResponse`. */
  readonly response: TSchema;
}

/** The chat's routes, each with its bodies. */
export const CHAT_HTTP_ROUTES = {
  workstations: { method: 'GET', path: '/api/workstations', response: ChatWorkstationsResponse },
  agents: { method: 'GET', path: '/api/agents', request: ChatAgentsQuery, response: ChatAgentsResponse },
  agent_install: {
    method: 'POST',
    path: '/api/agents/install',
    request: ChatAgentInstallRequest,
    response: ChatAgentInstallResponse,
  },
  agent_install_progress: {
    method: 'GET',
    path: '/api/agents/install',
    request: ChatAgentInstallRequest,
    response: ChatAgentInstallProgressResponse,
  },
  projects: { method: 'GET', path: '/api/projects', response: ChatProjectsResponse },
  project_create: {
    method: 'POST',
    path: '/api/projects',
    request: ChatProjectCreateRequest,
    response: ChatProjectCreateResponse,
  },
  sessions: {
    method: 'GET',
    path: '/api/sessions',
    request: ChatSessionsQuery,
    response: ChatSessionsResponse,
  },
  session_create: {
    method: 'POST',
    path: '/api/sessions',
    request: ChatSessionCreateRequest,
    response: ChatSessionCreateResponse,
  },
  session_continue: {
    method: 'POST',
    path: '/api/sessions/continue',
    request: ChatSessionContinueRequest,
    response: ChatSessionContinueResponse,
  },
  session_handoff: {
    method: 'POST',
    path: '/api/sessions/handoff',
    request: ChatSessionHandoffRequest,
    response: ChatSessionHandoffResponse,
  },
  session_rename: {
    method: 'POST',
    path: '/api/sessions/rename',
    request: ChatSessionRenameRequest,
    response: ChatSessionCreateResponse,
  },
  session_archive: {
    method: 'POST',
    path: '/api/sessions/archive',
    request: ChatSessionArchiveRequest,
    response: ChatSessionCreateResponse,
  },
  session_delete: {
    method: 'POST',
    path: '/api/sessions/delete',
    request: ChatSessionDeleteRequest,
    response: ChatSessionDeleteResponse,
  },
  session_files: {
    method: 'GET',
    path: '/api/sessions/files',
    request: ChatFilesQuery,
    response: ChatFilesResponse,
  },
  // The settings page's list; POST and DELETE `?id=` on the same path keep and revoke one rule.
  permission_rules: { method: 'GET', path: '/api/permission-rules', response: PermissionRulesReply },
} as const satisfies Record<string, ChatRoute>;

/** Every HTTP body schema of the chat, the error included. */
export const CHAT_HTTP_BODIES = [
  ChatWorkstationsResponse,
  ChatAgentsQuery,
  ChatAgentsResponse,
  ChatAgentInstallRequest,
  ChatAgentInstallResponse,
  ChatAgentInstallProgressResponse,
  ChatProjectsResponse,
  ChatProjectCreateRequest,
  ChatProjectCreateResponse,
  ChatSessionsQuery,
  ChatSessionsResponse,
  ChatSessionCreateRequest,
  ChatSessionCreateResponse,
  ChatSessionContinueRequest,
  ChatSessionContinueResponse,
  ChatSessionHandoffRequest,
  ChatSessionHandoffResponse,
  ChatSessionRenameRequest,
  ChatSessionArchiveRequest,
  ChatSessionDeleteRequest,
  ChatSessionDeleteResponse,
  ChatFilesQuery,
  ChatFilesResponse,
  PermissionRulesReply,
  ChatErrorResponse,
] as const;
