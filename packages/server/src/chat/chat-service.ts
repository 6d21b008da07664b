// The chat: projects, chat sessions and their live state, the JSON API the web UI calls, and the
// `/chat` WebSocket a tab opens per session. Agents run on a workstation (the daemon's own, or one
// connected from another machine) through the agent wire; a continued session's past is read from
// the agent's own files, once.

import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import {
  ChatSessionHandoffRequest,
  type SessionHandoffPreviewArgs,
  type SessionLink,
  validate,
  validateClientMessage,
  validateServerEvent,
} from '@cairn/protocol';
import { findAdapter, listSessions, loadTranscript, type SessionPlatform } from '@cairn/transcript';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AgentWireServer } from '../drive/agent-wire-server.js';
import { coalescedSend } from '../gate/coalesced-send.js';
import { CATALOG_REFUSAL, mayReadCatalog } from '../gate/op-access.js';
import { personOf, type WorkstationAccess } from '../gate/people.js';
import type { BuiltHandoff, HandoffProblem } from '../reader/handoff-document.js';
import { ChatSession, type ChatSocket, type Clock, type Event, realClock } from './chat-session.js';
import { ChatStore, type ProjectRow } from './chat-store.js';
import { type PastMessage, pastMessages } from './imported-past.js';
import { InstallProgressBoard } from './install-progress.js';
import { PermissionRuleStore } from './permission-rule-store.js';
import { permissionRulesApi } from './permission-rules-api.js';
import { listProjectFiles } from './project-files.js';
import { sessionManageApi } from './session-manage-api.js';

export const CHAT_PATH = '/chat';
const MAX_BODY = 8 * 1024 * 1024;
const MAX_CHAT_FRAME = 4 * 1024 * 1024;

export interface ChatServiceOptions {
  readonly storePath: string;
  readonly wire: AgentWireServer;
  /** The workstation a request that names none means: the daemon's own. */
  readonly workstation: string;
  /** Whether that workstation runs inside the daemon (else every workstation connects in). */
  readonly localInProcess?: boolean;
  /** Workstations known besides the connected ones (those with a ticket), online or not. */
  readonly knownWorkstations?: () => readonly string[];
  readonly platform: SessionPlatform;
  readonly log: (line: string) => void;
  readonly clock?: Clock;
  /** Check every event against the contract before it leaves; one that fails goes out as an
   * `error` naming the field. For tests and development. */
  readonly checkEvents?: boolean;
  /** Builds hand-off documents of listed sessions and keeps the links they make; without it the
   * chat starts no hand-off. */
  readonly handoffs?: Handoffs;
  /** The home whose config.json's `permissions` answer agents' requests besides remembered rules. */
  readonly cairnHome?: string;
  /** Which workstations the person behind a request may see and drive (a team's server); every
   * one when absent. */
  readonly access?: WorkstationAccess;
}

export interface Handoffs {
  build(
    args: SessionHandoffPreviewArgs,
  ): Promise<{ ok: true; value: BuiltHandoff } | { ok: false; error: HandoffProblem }>;
  /** The largest document one prompt carries. */
  readonly maxBytes: number;
  keep(link: SessionLink): void;
}

export class ChatService {
  readonly store: ChatStore;
  /** The permission rules remembered per project, kept beside the chat's own records. */
  readonly rules: PermissionRuleStore;
  private readonly live = new Map<string, ChatSession>();
  /** The tabs open on each chat, to close when it is deleted. */
  private readonly tabs = new Map<string, Set<WebSocket>>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CHAT_FRAME });
  /** Installs started from a page, and how each is going. */
  private readonly installs = new InstallProgressBoard();

  constructor(private readonly options: ChatServiceOptions) {
    this.store = new ChatStore(options.storePath);
    this.rules = new PermissionRuleStore(options.storePath, options.cairnHome, options.log);
  }

  /** The runtime of a chat session, made on first use. */
  session(id: string): ChatSession | undefined {
    const existing = this.live.get(id);
    if (existing) return existing;
    const row = this.store.session(id);
    if (!row) return undefined;
    const project = this.store.projectById(row.projectId);
    if (!project) return undefined;
    const last = this.store.messages(id).at(-1);
    if (last?.role === 'user') {
      // The server stopped while this prompt's turn ran; its reply is gone, and the tab says so.
      this.store.addMessage({
        id: randomUUID(),
        sessionId: id,
        role: 'system',
        content:
          'cairn stopped while this turn was running; its reply was lost. Send the message again to continue.',
        events: '',
        createdAt: Date.now(),
        images: [],
        outputTokens: null,
        durationMs: null,
        tokensPerSecond: null,
        ttftMs: null,
      });
    }
    const session = new ChatSession(row, project.path, {
      store: this.store,
      wire: this.options.wire,
      workstation: row.workstation,
      clock: this.options.clock ?? realClock,
      log: this.options.log,
      rules: this.rules,
    });
    this.live.set(id, session);
    return session;
  }

  /** `/api/...`: true when the request was one of the chat's (answered), false to pass it on. */
  async handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!url.pathname.startsWith('/api/')) return false;
    const route = `${req.method} ${url.pathname}`;
    try {
      const may = await this.allowed(req);
      if (url.pathname === '/api/permission-rules') {
        // On a team's server an admin keeps and revokes rules over this API; a member reads those of
        // the workstations they may use (a card's "Always allow" keeps one for its own workstation).
        if (this.options.access && personOf(req)?.role !== 'admin') {
          if (req.method !== 'GET') throw new Forbidden(RULES_REFUSAL);
          const reply = this.rules.reply();
          return json(res, 200, { ...reply, rules: reply.rules.filter((r) => may(r.workstation)) });
        }
        return await permissionRulesApi(this.rules, req, res, url, () => readBody(req));
      }
      switch (route) {
        case 'GET /api/workstations':
          return json(res, 200, { workstations: this.workstations().filter((w) => may(w.name)) });
        case 'GET /api/agents': {
          const workstation = usable(may, this.workstationNamed(url.searchParams.get('workstation')));
          return json(res, 200, { agents: this.options.wire.roster(workstation) });
        }
        case 'POST /api/agents/install': {
          const body = await readBody(req);
          const agent = stringField(body, 'agent');
          const workstation = usable(may, this.onlineWorkstation(body.workstation));
          const progress = this.installs.start(workstation, agent);
          const reply = await this.options.wire.install(workstation, agent, (step) => progress.step(step));
          progress.end(reply.ok ? undefined : (reply.error ?? 'install failed'));
          return reply.ok
            ? json(res, 200, { ok: true })
            : json(res, 400, { error: reply.error ?? 'install failed' });
        }
        case 'GET /api/agents/install': {
          const workstation = usable(may, this.workstationNamed(url.searchParams.get('workstation')));
          const agent = url.searchParams.get('agent');
          if (!agent) throw new BadRequest('agent is needed');
          return json(res, 200, this.installs.of(workstation, agent));
        }
        case 'GET /api/projects': {
          if (!this.options.access)
            return json(res, 200, { projects: this.store.projects().map((p) => this.wireProject(p)) });
          // A project whose chats all run on machines the person may not use is not theirs to see.
          const projects = this.store.projects().flatMap((p) => {
            const sessions = this.store.sessions(p.id);
            const seen = sessions.filter((s) => may(s.workstation));
            if (sessions.length > 0 && seen.length === 0) return [];
            return [this.wireProject({ ...p, sessionCount: seen.length })];
          });
          return json(res, 200, { projects });
        }
        case 'POST /api/projects': {
          const body = await readBody(req);
          // A folder on another workstation cannot be checked from here; its agent's start will say.
          const path =
            this.workstationNamed(body.workstation) === this.options.workstation
              ? folder(stringField(body, 'path'))
              : absolute(stringField(body, 'path'));
          const name =
            typeof body.name === 'string' && body.name.trim() !== '' ? body.name.trim() : undefined;
          const project = this.store.project(path, name);
          return json(res, 200, {
            project: this.wireProject({ ...project, sessionCount: this.store.sessions(project.id).length }),
          });
        }
        case 'GET /api/sessions': {
          const projectId = url.searchParams.get('projectId') ?? undefined;
          const archived = url.searchParams.get('archived') === 'true';
          return json(res, 200, {
            sessions: this.store
              .sessions(projectId, archived)
              .filter((s) => may(s.workstation))
              .map((s) => this.wireSession(s)),
          });
        }
        case 'POST /api/sessions/rename':
        case 'POST /api/sessions/archive':
        case 'POST /api/sessions/delete': {
          const body = await readBody(req);
          const named = typeof body.sessionId === 'string' ? this.store.session(body.sessionId) : undefined;
          if (named) usable(may, named.workstation);
          const answer = sessionManageApi(this.manageContext(), url.pathname, body);
          return answer ? json(res, answer.status, answer.body) : false;
        }
        case 'POST /api/sessions': {
          const body = await readBody(req);
          const project = this.store.projectById(stringField(body, 'projectId'));
          if (!project) throw new BadRequest('no such project');
          const workstation = usable(may, this.onlineWorkstation(body.workstation));
          const agent = this.knownAgent(stringField(body, 'agent'), workstation);
          const row = this.store.createSession(project.id, agent, null, undefined, workstation);
          return json(res, 200, { session: this.wireSession({ ...row, messageCount: 0 }) });
        }
        case 'POST /api/sessions/continue': {
          const body = await readBody(req);
          const workstation = usable(may, this.onlineWorkstation(body.workstation));
          const agent = this.knownAgent(stringField(body, 'agent'), workstation);
          const nativeSessionId = stringField(body, 'nativeSessionId');
          // The folder is the workstation's: only the daemon's own can be checked from here.
          const cwd =
            workstation === this.options.workstation
              ? folder(stringField(body, 'cwd'))
              : stringField(body, 'cwd');
          const known = this.store.sessionByNative(agent, nativeSessionId);
          if (known) usable(may, known.workstation);
          // The past is read from the server's own disk: on a team's server, for an admin only.
          const readPast = mayReadCatalog(personOf(req), this.options.access !== undefined);
          const row = known ?? (await this.importSession(agent, nativeSessionId, cwd, workstation, readPast));
          return json(res, 200, {
            session: this.wireSession({ ...row, messageCount: this.store.messages(row.id).length }),
          });
        }
        case 'GET /api/sessions/files': {
          const named = this.store.session(url.searchParams.get('session') ?? '');
          if (named) usable(may, named.workstation);
          return json(res, 200, await this.projectFiles(url));
        }
        case 'POST /api/sessions/handoff': {
          // The session handed off is one the server reads from its own disk: an admin's alone.
          if (!mayReadCatalog(personOf(req), this.options.access !== undefined))
            throw new Forbidden(CATALOG_REFUSAL);
          const body = await readBody(req);
          usable(may, this.workstationNamed(body.workstation));
          return await this.handOff(res, body);
        }
        default:
          return json(res, 404, { error: `no such API: ${route}` });
      }
    } catch (error) {
      if (error instanceof BadRequest) return json(res, 400, { error: error.message });
      if (error instanceof Forbidden) return json(res, 403, { error: error.message });
      this.options.log(`chat: ${route} failed: ${(error as Error).stack ?? error}`);
      return json(res, 500, { error: 'internal error' });
    }
  }

  /** The `/chat?session=ID` upgrade, after the gate accepted it. */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const id = url.searchParams.get('session') ?? '';
    const row = this.options.access ? this.store.session(id) : undefined;
    const refused = row && forbidden(await this.allowed(req), row.workstation);
    if (refused) {
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(refused) + 1}\r\n\r\n${refused}\n`,
      );
      return;
    }
    const session = this.session(id);
    if (!session) {
      socket.end(
        'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 18\r\n\r\nno such chat here\n',
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const send = coalescedSend(ws, socket);
      let inOrder = Promise.resolve();
      const runsOn = this.store.session(session.id)?.workstation ?? this.options.workstation;
      const open = this.tabs.get(session.id) ?? new Set<WebSocket>();
      this.tabs.set(session.id, open.add(ws));
      ws.on('close', () => open.delete(ws));
      const tab: ChatSocket = {
        send: (event: Event) => {
          if (ws.readyState !== ws.OPEN) return;
          if (this.options.checkEvents) {
            const valid = validateServerEvent(event);
            if (!valid.ok) {
              this.options.log(`chat: a ${event.type} event broke the contract: ${valid.error.message}`);
              event = {
                type: 'error',
                message: `the server broke the contract in ${event.type}: ${valid.error.message}`,
              };
            }
          }
          try {
            send(JSON.stringify(event));
          } catch (error) {
            this.options.log(`chat: an event could not be sent: ${(error as Error).message}`);
          }
        },
      };
      ws.on('message', (data, isBinary) => {
        if (isBinary) return tab.send({ type: 'error', message: 'messages are JSON text' });
        let value: unknown;
        try {
          value = JSON.parse(data.toString());
        } catch {
          return tab.send({ type: 'error', message: 'not JSON' });
        }
        const checked = validateClientMessage(value);
        if (!checked.ok) return tab.send({ type: 'error', message: `refused: ${checked.error.message}` });
        const receive = () =>
          void session.receive(value as Event).catch((error: unknown) => {
            this.options.log(`chat: ${(error as Error).stack ?? error}`);
            tab.send({ type: 'error', message: 'internal error' });
          });
        if (!this.options.access) return receive();
        // On a team's server each message is checked again (a workstation made private, a user
        // removed), in the order the messages came.
        inOrder = inOrder.then(async () => {
          const refused = forbidden(await this.allowed(req).catch(() => () => false), runsOn);
          if (refused) tab.send({ type: 'error', message: refused });
          else receive();
        });
      });
      ws.on('close', () => session.detach(tab));
      ws.on('error', () => ws.terminate());
      void session.attach(tab);
    });
  }

  close(): void {
    for (const session of this.live.values()) session.dispose();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.store.close();
    this.rules.close();
  }

  /** Every workstation known, the daemon's own first: connected ones, ticketed ones, and those
   * chat sessions run on. One that is not connected is listed offline with no agents. */
  private workstations() {
    const { wire, workstation: own } = this.options;
    const online = new Set(wire.workstations());
    const names = new Set<string>();
    if (this.options.localInProcess !== false || online.has(own)) names.add(own);
    for (const name of [...online].sort()) names.add(name);
    for (const name of [...(this.options.knownWorkstations?.() ?? []), ...this.store.workstations()].sort())
      names.add(name);
    return [...names].map((name) => ({
      name,
      local: name === own && this.options.localInProcess !== false,
      online: online.has(name),
      agents: wire.roster(name),
      ...(wire.rosterProblems(name).length > 0 ? { configProblems: wire.rosterProblems(name) } : {}),
    }));
  }

  /** Which workstations the person behind `req` may use: all on a daemon without people, none
   * for a request that came in without a person. */
  private async allowed(req: IncomingMessage): Promise<(workstation: string) => boolean> {
    if (!this.options.access) return () => true;
    const person = personOf(req);
    return person ? await this.options.access(person) : () => false;
  }

  /** The workstation a query names, else the default one. */
  private workstationNamed(value: unknown): string {
    if (value === undefined || value === null) return this.options.workstation;
    if (typeof value !== 'string' || value === '')
      throw new BadRequest('workstation must be a non-empty string');
    return value;
  }

  /** The workstation a request names, which must be connected now. */
  private onlineWorkstation(value: unknown): string {
    const name = this.workstationNamed(value);
    if (!this.options.wire.workstations().includes(name))
      throw new BadRequest(`workstation ${name} is not connected`);
    return name;
  }

  private knownAgent(agent: string, workstation: string): string {
    const roster = this.options.wire.roster(workstation);
    if (!roster.some((b) => b.key === agent))
      throw new BadRequest(
        workstation === this.options.workstation
          ? `no agent named ${agent}`
          : `no agent named ${agent} on workstation ${workstation}`,
      );
    return agent;
  }

  /**
   * A new chat whose first prompt is another session's hand-off document. It answers once the new
   * session took the document, and only then are the two linked: a start that failed links nothing.
   */
  private async handOff(res: ServerResponse, body: Record<string, unknown>): Promise<true> {
    const handoffs = this.options.handoffs;
    if (!handoffs) throw new BadRequest('this server starts no hand-offs');
    const checked = validate(ChatSessionHandoffRequest, body);
    if (!checked.ok) throw new BadRequest(`the hand-off request is invalid: ${checked.error.message}`);
    const request = checked.value;
    const workstation = this.onlineWorkstation(request.workstation);
    const agent = this.knownAgent(request.agent, workstation);
    const toAgent = findAdapter(agent)?.id ?? agent;
    const built = await handoffs.build({ ...request.handoff, to: request.handoff.to ?? toAgent });
    if (!built.ok) {
      if (built.error.code === 'internal_error') throw new Error(built.error.message);
      throw new BadRequest(built.error.message);
    }
    const { document: doc, source, cut } = built.value;
    const kind = request.handoff.kind ?? 'handoff';
    const where = request.cwd ?? source.cwd;
    if (where === undefined)
      throw new BadRequest(`${source.agent} session ${source.sid} names no project folder: give one`);
    const cwd = workstation === this.options.workstation ? folder(where) : absolute(where);
    if (kind === 'fork' && request.via === 'agent' && agent === source.agent && cut?.ok) {
      const forked = await this.agentFork(workstation, agent, cwd, source.sid, cut.messageId);
      if (forked !== undefined) {
        const prompt = request.handoff.prompt ?? cut.prompt;
        const atItem = request.handoff.until_uuid!;
        return await this.startFork(res, { agent, workstation, cwd, source, forked, prompt, atItem });
      }
    }
    if (doc.items === 0)
      throw new BadRequest(
        `the selection keeps no item of ${source.agent} session ${source.sid}: nothing to hand off`,
      );
    if (doc.bytes > handoffs.maxBytes)
      throw new BadRequest(
        `the document is ${doc.bytes} bytes, more than one prompt carries (${handoffs.maxBytes}): narrow the selection`,
      );
    const title = `${kind === 'fork' ? 'Fork' : 'Continued'}: ${source.title ?? source.sid}`;
    const project = this.store.project(cwd);
    const row = this.store.createSession(
      project.id,
      agent,
      null,
      title.length > 60 ? `${title.slice(0, 59)}…` : title,
      workstation,
    );
    const session = this.session(row.id);
    if (!session) throw new Error(`the chat session ${row.id} was not kept`);
    await session.receive({ type: 'user_message', content: doc.markdown });
    const started = this.store.session(row.id);
    const took = this.store.messages(row.id).some((m) => m.role === 'user');
    if (!took || !started?.nativeSessionId)
      return json(res, 502, {
        error: `${agent} did not take the document${session.problem ? `: ${session.problem}` : ''}`,
      });
    // A fork names the item it was asked from, even when the selection left that item itself out.
    const atItem = kind === 'fork' ? (request.handoff.until_uuid ?? doc.lastItem) : doc.lastItem;
    const link: SessionLink = {
      kind,
      from: { agent: source.agent, sid: source.sid },
      to: { agent: toAgent, sid: started.nativeSessionId },
      ...(atItem === undefined ? {} : { at_item: atItem }),
      via: 'handoff',
      created_at: Date.now(),
    };
    handoffs.keep(link);
    return json(res, 200, {
      session: this.wireSession({ ...started, messageCount: this.store.messages(row.id).length }),
      link,
    });
  }

  /**
   * The agent's own fork of a session, cut after `messageId`: opened once on the workstation to be
   * made, then closed, as the chat opens it again as its own. Undefined when the agent (or its
   * workstation) could not make it, so the caller hands the history off instead.
   */
  private async agentFork(
    workstation: string,
    agent: string,
    cwd: string,
    sourceSid: string,
    messageId: string,
  ): Promise<string | undefined> {
    const opened = await this.options.wire.open({
      workstation,
      agentKey: agent,
      bridge: agent,
      cwd,
      fork: { nativeSessionId: sourceSid, messageId },
    });
    this.options.wire.closeSession(opened.sessionRef);
    if (opened.ok && opened.forked && opened.nativeSessionId) return opened.nativeSessionId;
    this.options.log(
      `chat: ${agent} did not fork ${sourceSid} itself (${opened.error ?? 'no session id'}); handing it off`,
    );
    return undefined;
  }

  /** A chat on the agent's fork, its past read from the fork's files, sent its first prompt and linked. */
  private async startFork(
    res: ServerResponse,
    fork: {
      agent: string;
      workstation: string;
      cwd: string;
      source: BuiltHandoff['source'];
      forked: string;
      prompt: string;
      atItem: string;
    },
  ): Promise<true> {
    const row = await this.importSession(fork.agent, fork.forked, fork.cwd, fork.workstation);
    const title = `Fork: ${fork.source.title ?? fork.source.sid}`;
    this.store.rename(row.id, title.length > 60 ? `${title.slice(0, 59)}…` : title);
    const session = this.session(row.id);
    if (!session) throw new Error(`the chat session ${row.id} was not kept`);
    const before = this.store.messages(row.id).length;
    await session.receive({ type: 'user_message', content: fork.prompt });
    const started = this.store.session(row.id);
    const took = this.store.messages(row.id).length > before;
    if (!took || !started?.nativeSessionId)
      return json(res, 502, {
        error: `${fork.agent} did not take the prompt${session.problem ? `: ${session.problem}` : ''}`,
      });
    const toAgent = findAdapter(fork.agent)?.id ?? fork.agent;
    const link: SessionLink = {
      kind: 'fork',
      from: { agent: fork.source.agent, sid: fork.source.sid },
      to: { agent: toAgent, sid: started.nativeSessionId },
      at_item: fork.atItem,
      via: 'agent',
      created_at: Date.now(),
    };
    this.options.handoffs?.keep(link);
    return json(res, 200, {
      session: this.wireSession({ ...started, messageCount: this.store.messages(row.id).length }),
      link,
    });
  }

  /** A chat session for a session the agent wrote, with its past read from the files. */
  /** The files of a session's project folder that `@` offers; only the daemon's own folders. */
  private async projectFiles(url: URL): Promise<{ files: string[]; truncated: boolean }> {
    const id = url.searchParams.get('session');
    if (!id) throw new BadRequest('session is needed');
    const row = this.store.session(id);
    if (!row) throw new BadRequest(`no chat session ${id}`);
    if (row.workstation !== this.options.workstation)
      throw new BadRequest(`the files of ${row.workstation} cannot be listed from this daemon`);
    const project = this.store.projectById(row.projectId);
    if (!project) throw new BadRequest(`the project of chat session ${id} is gone`);
    return await listProjectFiles(project.path, url.searchParams.get('query') ?? '');
  }

  private async importSession(
    agent: string,
    nativeSessionId: string,
    cwd: string,
    workstation: string,
    readPast = true,
  ) {
    const project = this.store.project(cwd);
    let title = 'Continued session';
    let past: PastMessage[] = [];
    for await (const entry of readPast ? listSessions(this.options.platform, { agent }) : []) {
      if ('ref' in entry || entry.id !== nativeSessionId) continue;
      if (entry.title ?? entry.firstPrompt) title = (entry.title ?? entry.firstPrompt ?? title).slice(0, 60);
      const loaded = await loadTranscript(this.options.platform, { path: entry.path, agent: entry.agent });
      if (loaded.ok) past = pastMessages(loaded.value);
      break;
    }
    const row = this.store.createSession(project.id, agent, nativeSessionId, title, workstation);
    for (const m of past) {
      this.store.addMessage({
        id: randomUUID(),
        sessionId: row.id,
        role: m.role,
        content: m.content,
        events: m.events,
        createdAt: m.at,
        images: [],
        outputTokens: null,
        durationMs: null,
        tokensPerSecond: null,
        ttftMs: null,
      });
    }
    return row;
  }

  private manageContext() {
    return {
      store: this.store,
      running: (id: string) => this.live.get(id),
      forget: (id: string) => {
        this.live.get(id)?.dispose();
        this.live.delete(id);
        for (const ws of this.tabs.get(id) ?? []) ws.close(4404, 'this chat was deleted');
        this.tabs.delete(id);
      },
      summary: (row: ReturnType<ChatStore['sessions']>[number]) => this.wireSession(row),
    };
  }

  private wireProject(p: ProjectRow & { sessionCount: number }) {
    const busy = this.store.sessions(p.id).some((s) => this.live.get(s.id)?.busy === true);
    return { ...p, ...(busy ? { hasActiveSession: true, busy: true } : {}) };
  }

  private wireSession(s: ReturnType<ChatStore['sessions']>[number]) {
    const busy = this.live.get(s.id)?.busy === true;
    return {
      id: s.id,
      projectId: s.projectId,
      title: s.title,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      messageCount: s.messageCount,
      agent: s.agent,
      nativeSessionId: s.nativeSessionId,
      workstation: s.workstation,
      workstationOnline: this.options.wire.workstations().includes(s.workstation),
      ...(s.archived ? { archived: true } : {}),
      ...(busy ? { hasActiveTurn: true, busy: true } : {}),
    };
  }
}

class BadRequest extends Error {}
class Forbidden extends Error {}

const RULES_REFUSAL = 'forbidden: on a team’s server only an admin keeps or revokes permission rules';

/** Why `workstation` is not for this person, or undefined when it is. */
const forbidden = (may: (workstation: string) => boolean, workstation: string): string | undefined =>
  may(workstation) ? undefined : `forbidden: workstation ${workstation} is neither yours nor shared`;

/** The workstation, when the person may use it. */
function usable(may: (workstation: string) => boolean, workstation: string): string {
  const refused = forbidden(may, workstation);
  if (refused) throw new Forbidden(refused);
  return workstation;
}

function json(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
  return true;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BadRequest('request body too large');
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BadRequest('the body must be a JSON object');
  return value as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new BadRequest(`${name} must be a non-empty string`);
  return value;
}

/** An absolute path, normalized. */
function absolute(path: string): string {
  if (!isAbsolute(path)) throw new BadRequest(`the project folder must be an absolute path: ${path}`);
  return resolve(path);
}

/** An absolute path of an existing folder, normalized. */
function folder(path: string): string {
  const normalized = absolute(path);
  let isDir = false;
  try {
    isDir = statSync(normalized).isDirectory();
  } catch {
    throw new BadRequest(`no such folder: ${normalized}`);
  }
  if (!isDir) throw new BadRequest(`not a folder: ${normalized}`);
  return normalized;
}
