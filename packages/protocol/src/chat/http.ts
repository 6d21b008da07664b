// The chat's HTTP bodies: the agents one can chat with, projects, and a project's chat sessions
// (new, or continued from a session the agent already has). All of it is cairn's own: spectral's
// wire defines the rows (`WireProject`, `WireSessionSummary`) but not these routes.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { BridgeInfoSchema } from './agent-wire-shapes.js';
import { Id } from './fields.js';
import { WireProject, WireSessionSummary } from './projects.js';

/** cairn's: a chat session's row, with the agent that runs it and that agent's own id for the session
 * (null until the agent has given one). */
export const ChatSessionSummary = Type.Object(
  { ...WireSessionSummary.properties, agent: Id, nativeSessionId: Type.Union([Id, Type.Null()]) },
  { $id: 'ChatSessionSummary' },
);
export type ChatSessionSummary = Static<typeof ChatSessionSummary>;

/** `GET /api/agents`: the roster, as the workstations report it. */
export const ChatAgentsResponse = Type.Object(
  { agents: Type.Array(BridgeInfoSchema) },
  { $id: 'ChatAgentsResponse' },
);
export type ChatAgentsResponse = Static<typeof ChatAgentsResponse>;

/** `GET /api/projects`. */
export const ChatProjectsResponse = Type.Object(
  { projects: Type.Array(WireProject) },
  { $id: 'ChatProjectsResponse' },
);
export type ChatProjectsResponse = Static<typeof ChatProjectsResponse>;

/** `POST /api/projects`: declare a folder. The path must be absolute and exist; the name defaults to
 * the folder's. */
export const ChatProjectCreateRequest = Type.Object(
  { path: Type.String({ minLength: 1 }), name: Type.Optional(Type.String({ minLength: 1 })) },
  { $id: 'ChatProjectCreateRequest' },
);
export type ChatProjectCreateRequest = Static<typeof ChatProjectCreateRequest>;

export const ChatProjectCreateResponse = Type.Object(
  { project: WireProject },
  { $id: 'ChatProjectCreateResponse' },
);
export type ChatProjectCreateResponse = Static<typeof ChatProjectCreateResponse>;

/** `GET /api/sessions?projectId=…`: one project's chat sessions; every project's without it. */
export const ChatSessionsQuery = Type.Object({ projectId: Type.Optional(Id) }, { $id: 'ChatSessionsQuery' });
export type ChatSessionsQuery = Static<typeof ChatSessionsQuery>;

export const ChatSessionsResponse = Type.Object(
  { sessions: Type.Array(ChatSessionSummary) },
  { $id: 'ChatSessionsResponse' },
);
export type ChatSessionsResponse = Static<typeof ChatSessionsResponse>;

/** `POST /api/sessions`: a new chat with an agent of the roster, in a project. */
export const ChatSessionCreateRequest = Type.Object(
  { projectId: Id, agent: Id },
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
  { agent: Id, nativeSessionId: Id, cwd: Type.String({ minLength: 1 }) },
  { $id: 'ChatSessionContinueRequest' },
);
export type ChatSessionContinueRequest = Static<typeof ChatSessionContinueRequest>;

export const ChatSessionContinueResponse = Type.Object(
  { session: ChatSessionSummary },
  { $id: 'ChatSessionContinueResponse' },
);
export type ChatSessionContinueResponse = Static<typeof ChatSessionContinueResponse>;

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
  agents: { method: 'GET', path: '/api/agents', response: ChatAgentsResponse },
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
} as const satisfies Record<string, ChatRoute>;

/** Every HTTP body schema of the chat, the error included. */
export const CHAT_HTTP_BODIES = [
  ChatAgentsResponse,
  ChatProjectsResponse,
  ChatProjectCreateRequest,
  ChatProjectCreateResponse,
  ChatSessionsQuery,
  ChatSessionsResponse,
  ChatSessionCreateRequest,
  ChatSessionCreateResponse,
  ChatSessionContinueRequest,
  ChatSessionContinueResponse,
  ChatErrorResponse,
] as const;
