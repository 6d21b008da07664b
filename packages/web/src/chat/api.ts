// The chat's HTTP side: agents, projects and chat sessions, asked with the page's token. A failure
// is a value carrying the server's own words.
import type { ChatSessionHandoffRequest, SessionLink } from '@cairn/protocol';
import { authorizedFetch } from '../rpc.js';
import type { BridgeInfo, ChatSessionSummary, ChatWorkstation, WireProject } from './wire.js';

export type Answer<T> = { ok: true; value: T } | { ok: false; error: string };

async function call<T>(path: string, body?: unknown): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await authorizedFetch(
      path,
      body === undefined
        ? {}
        : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
    );
  } catch {
    return { ok: false, error: 'the cairn server could not be reached' };
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const said = typeof json === 'object' && json !== null ? (json as { error?: unknown }).error : undefined;
    return { ok: false, error: typeof said === 'string' ? said : `the server answered ${res.status}` };
  }
  if (typeof json !== 'object' || json === null) return { ok: false, error: 'the server sent no JSON' };
  return { ok: true, value: json as T };
}

const pick = <T, K extends string>(a: Answer<Record<K, T>>, key: K): Answer<T> => {
  if (!a.ok) return a;
  const v = a.value[key];
  return v === undefined ? { ok: false, error: `the server's answer has no ${key}` } : { ok: true, value: v };
};

/** Every workstation the daemon knows, its own first, each with its agents. */
export const listWorkstations = async (): Promise<Answer<ChatWorkstation[]>> =>
  pick(await call<Record<'workstations', ChatWorkstation[]>>('api/workstations'), 'workstations');

export const listAgents = async (): Promise<Answer<BridgeInfo[]>> =>
  pick(await call<Record<'agents', BridgeInfo[]>>('api/agents'), 'agents');

/** `workstation` absent: the daemon's own. */
export const installAgent = async (agent: string, workstation?: string): Promise<Answer<unknown>> =>
  await call('api/agents/install', { agent, ...(workstation === undefined ? {} : { workstation }) });

export interface InstallProgress {
  phase: 'preparing' | 'downloading' | 'checking' | 'done' | 'failed' | null;
  lines: string[];
  error?: string;
}

/** How an install started from a page is going. */
export const installProgress = async (
  agent: string,
  workstation?: string,
): Promise<Answer<InstallProgress>> =>
  await call(
    `api/agents/install?${new URLSearchParams({ agent, ...(workstation === undefined ? {} : { workstation }) })}`,
  );

export const listProjects = async (): Promise<Answer<WireProject[]>> =>
  pick(await call<Record<'projects', WireProject[]>>('api/projects'), 'projects');

export const createProject = async (path: string, workstation?: string): Promise<Answer<WireProject>> =>
  pick(
    await call<Record<'project', WireProject>>('api/projects', {
      path,
      ...(workstation === undefined ? {} : { workstation }),
    }),
    'project',
  );

/** The chat sessions of a project, or of every project; the archived ones instead with `archived`. */
export const listChatSessions = async (
  projectId?: string,
  archived = false,
): Promise<Answer<ChatSessionSummary[]>> => {
  const query = new URLSearchParams({
    ...(projectId === undefined ? {} : { projectId }),
    ...(archived ? { archived: 'true' } : {}),
  }).toString();
  return pick(
    await call<Record<'sessions', ChatSessionSummary[]>>(
      query === '' ? 'api/sessions' : `api/sessions?${query}`,
    ),
    'sessions',
  );
};

/** Every chat session, archived ones included: for finding one by id. */
export async function listEveryChatSession(): Promise<Answer<ChatSessionSummary[]>> {
  const [kept, archived] = await Promise.all([listChatSessions(), listChatSessions(undefined, true)]);
  if (!kept.ok) return kept;
  if (!archived.ok) return archived;
  return { ok: true, value: [...kept.value, ...archived.value] };
}

/** The person's own title for a chat, kept by cairn and shown instead of the agent's. */
export const renameChatSession = async (
  sessionId: string,
  title: string,
): Promise<Answer<ChatSessionSummary>> =>
  pick(
    await call<Record<'session', ChatSessionSummary>>('api/sessions/rename', { sessionId, title }),
    'session',
  );

export const archiveChatSession = async (
  sessionId: string,
  archived: boolean,
): Promise<Answer<ChatSessionSummary>> =>
  pick(
    await call<Record<'session', ChatSessionSummary>>('api/sessions/archive', { sessionId, archived }),
    'session',
  );

/** Forgets a chat in cairn; the agent's own session files stay. Refused while a turn runs. */
export const deleteChatSession = async (sessionId: string): Promise<Answer<string>> =>
  pick(await call<Record<'deleted', string>>('api/sessions/delete', { sessionId }), 'deleted');

/** One chat session with its project, when the server knows it; `null` when it does not. */
export async function findChatSession(
  id: string,
): Promise<Answer<{ session: ChatSessionSummary; project: WireProject | undefined } | null>> {
  const sessions = await listEveryChatSession();
  if (!sessions.ok) return sessions;
  const session = sessions.value.find((s) => s.id === id);
  if (!session) return { ok: true, value: null };
  const projects = await listProjects();
  const project = projects.ok ? projects.value.find((p) => p.id === session.projectId) : undefined;
  return { ok: true, value: { session, project } };
}

export const createChatSession = async (
  projectId: string,
  agent: string,
  workstation?: string,
): Promise<Answer<ChatSessionSummary>> =>
  pick(
    await call<Record<'session', ChatSessionSummary>>('api/sessions', {
      projectId,
      agent,
      ...(workstation === undefined ? {} : { workstation }),
    }),
    'session',
  );

export const continueSession = async (
  agent: string,
  nativeSessionId: string,
  cwd: string,
): Promise<Answer<ChatSessionSummary>> =>
  pick(
    await call<Record<'session', ChatSessionSummary>>('api/sessions/continue', {
      agent,
      nativeSessionId,
      cwd,
    }),
    'session',
  );

/** Kept apart so that the rule can be checked without the page's connection. */
export { CONTINUABLE } from './continuable.js';

/** A new chat whose first prompt is another session's hand-off document; answered once the new
 * session took it, with the link kept between the two. */
export const handOffSession = async (
  request: ChatSessionHandoffRequest,
): Promise<Answer<{ session: ChatSessionSummary; link: SessionLink }>> =>
  await call('api/sessions/handoff', request);

/** The files of a chat's project folder whose path holds `query`, for the composer's `@`. */
export const listProjectFiles = async (
  session: string,
  query: string,
): Promise<Answer<{ files: string[]; truncated: boolean }>> =>
  await call(`api/sessions/files?${new URLSearchParams({ session, query })}`);
