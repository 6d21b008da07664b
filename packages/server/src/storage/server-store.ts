// The server's state behind one asynchronous interface, so that the code above it runs the same on
// one person's SQLite files and on a team's PostgreSQL database. Its parts follow the stores that
// exist today (the drive's event log, the chat, the permission rules, links, marks, tickets), with
// the same rows and the same orders, plus what a team server adds: people and their workstations.
import type {
  RememberedPermissionRule,
  RuleEffect,
  SearchTarget,
  SessionHead,
  SessionLink,
  SessionMarks,
  SyncedDoc,
  SyncedDocsState,
  SyncedSession,
} from '@cairn/protocol';
import type { ChatSessionRow, MessageRow, ProjectRow, SettledPermissionRow } from '../chat/chat-store.js';
import type { DrivenSessionRecord, LoggedEvent } from '../drive/event-log.js';
import type { IssueResult, TicketInfo } from '../drive/tickets.js';
import type { MarksChange } from './marks-store.js';

export type {
  ChatSessionRow,
  DrivenSessionRecord,
  IssueResult,
  LoggedEvent,
  MarksChange,
  MessageRow,
  ProjectRow,
  SettledPermissionRow,
  TicketInfo,
};

/** What an append did: the events stored, those already held, and the seq to ack through. */
export interface AppendOutcome {
  readonly stored: number;
  readonly repeats: number;
  /** The first seq refused because the one before it is missing; the caller asks for a backfill. */
  readonly gapAt?: number;
  /** Every seq from 1 to this one is stored and durable: what the workstation may be acked. */
  readonly heldSeq: number;
}

/** Each driven session's record and its event log, in the workstation's seq order. */
export interface DriveLogRecords {
  upsert(record: Omit<DrivenSessionRecord, 'heldSeq' | 'turnRunning' | 'closed'>): Promise<void>;
  get(sessionRef: string): Promise<DrivenSessionRecord | undefined>;
  /** Open sessions of one workstation, in no set order. */
  ofWorkstation(workstation: string): Promise<DrivenSessionRecord[]>;
  setNativeSessionId(sessionRef: string, nativeSessionId: string): Promise<void>;
  setTurnRunning(sessionRef: string, running: boolean): Promise<void>;
  close(sessionRef: string): Promise<void>;
  /**
   * Stores the events that come next, in order, and commits them before answering: an event
   * already held is a repeat and ignored, one past a gap is refused with the rest of the batch.
   * Appends of one session from several connections are serialized, so none is stored twice and
   * none is skipped.
   */
  append(sessionRef: string, events: readonly LoggedEvent[]): Promise<AppendOutcome>;
  /** The highest seq held (0 when none, or for an unknown session). */
  heldSeq(sessionRef: string): Promise<number>;
  /** Events after `afterSeq`, in order. */
  events(sessionRef: string, afterSeq?: number, limit?: number): Promise<LoggedEvent[]>;
  /**
   * Hands `listener` the session's events after `afterSeq`, in order and each once: those held
   * now, then each one stored later, by this process or (on a shared database) any other. Answers
   * the function that stops it.
   */
  subscribe(sessionRef: string, afterSeq: number, listener: EventsListener): Promise<() => void>;
}

export type EventsListener = (events: readonly LoggedEvent[]) => void;

/** Projects, chat sessions and their messages, settled permission cards and chosen options. */
export interface ChatRecords {
  /** The project of a folder, created when it is new. */
  project(path: string, name?: string): Promise<ProjectRow>;
  projectById(id: string): Promise<ProjectRow | undefined>;
  /** Newest first. */
  projects(): Promise<(ProjectRow & { sessionCount: number })[]>;
  createSession(
    projectId: string,
    agent: string,
    nativeSessionId: string | null,
    title?: string,
    workstation?: string,
  ): Promise<ChatSessionRow>;
  session(id: string): Promise<ChatSessionRow | undefined>;
  sessionByNative(agent: string, nativeSessionId: string): Promise<ChatSessionRow | undefined>;
  /** Newest first; with `archived`, only archived ones or only the others. */
  sessions(projectId?: string, archived?: boolean): Promise<(ChatSessionRow & { messageCount: number })[]>;
  setNativeSessionId(id: string, nativeSessionId: string): Promise<void>;
  rename(id: string, title: string): Promise<void>;
  renameByPerson(id: string, title: string): Promise<void>;
  archive(id: string, archived: boolean): Promise<void>;
  deleteSession(id: string): Promise<void>;
  /** Appends a message with the next sequence of its session. */
  addMessage(message: Omit<MessageRow, 'sequence'>): Promise<MessageRow>;
  messages(sessionId: string): Promise<MessageRow[]>;
  /** Every workstation some chat session runs on, in no set order. */
  workstations(): Promise<string[]>;
  settlePermission(sessionId: string, settled: SettledPermissionRow): Promise<void>;
  /** Oldest first, the latest few only. */
  settledPermissions(sessionId: string): Promise<SettledPermissionRow[]>;
  setConfigValue(sessionId: string, configId: string, value: string | boolean): Promise<void>;
  forgetConfigValue(sessionId: string, configId: string): Promise<void>;
  /** In the order they were last chosen. */
  configValues(sessionId: string): Promise<{ configId: string; value: string | boolean }[]>;
}

/** The permission rules remembered per workstation and project folder (config.json's are read above
 * this layer). */
export interface PermissionRuleRecords {
  /** Every rule, or one workstation's or folder's, by workstation, folder and then oldest first. */
  list(filter?: { workstation?: string; projectPath?: string }): Promise<RememberedPermissionRule[]>;
  /** Keeps a rule (checked and normalized here); the one already kept when it is there. */
  remember(
    workstation: string,
    projectPath: string,
    effect: RuleEffect,
    rule: string,
  ): Promise<RememberedPermissionRule>;
  /** False when there was none by that id. */
  revoke(id: string): Promise<boolean>;
}

export interface LinkRecords {
  /** Linking the same two sessions again keeps the latest kind and item. */
  add(link: SessionLink): Promise<SessionLink>;
  /** Links with a session matching the filter at either end, oldest first. */
  read(filter?: { agent?: string; sid?: string }): Promise<SessionLink[]>;
}

export interface MarkRecords {
  /** Every session with a mark, the latest marked first. */
  read(filter?: { agent?: string; sid?: string }): Promise<SessionMarks[]>;
  write(agent: string, sid: string, change: MarksChange, now?: number): Promise<SessionMarks>;
}

/** Workstation tickets, kept as digests only. */
export interface TicketRecords {
  /** A new ticket for `name`; refused when it has one, unless `replace` revokes it. */
  issue(name: string, options?: { replace?: boolean; now?: Date }): Promise<IssueResult>;
  /** The workstation a ticket belongs to, found by its digest. */
  owner(ticket: string): Promise<string | undefined>;
  /** How many tickets of `name` were removed. */
  revoke(name: string): Promise<number>;
  /** Oldest first; never the tickets themselves. */
  list(): Promise<TicketInfo[]>;
}

export type Role = 'admin' | 'member';

export interface UserRecord {
  readonly name: string;
  readonly role: Role;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
}

/** People with their own tokens, kept as digests: a token is shown once, when it is made. */
export interface UserRecords {
  /** A new user and their token; refused (an error naming the user) when the name is taken. */
  add(name: string, role: Role, now?: number): Promise<{ user: UserRecord; token: string }>;
  /** A fresh token for a user, the old one stops working; undefined for an unknown user. */
  renewToken(name: string): Promise<string | undefined>;
  get(name: string): Promise<UserRecord | undefined>;
  /** The user a token belongs to. */
  byToken(token: string): Promise<UserRecord | undefined>;
  /** By name. */
  list(): Promise<UserRecord[]>;
  /** False for an unknown user; an error while the user still owns workstations. */
  remove(name: string): Promise<boolean>;
}

export type Visibility = 'private' | 'shared';

export interface WorkstationRecord {
  readonly name: string;
  readonly owner: string;
  readonly visibility: Visibility;
  readonly createdAt: number;
}

/** Which user each workstation belongs to, and whether the team sees it. */
export interface WorkstationRecords {
  /** Registers a workstation; an error when the owner is unknown or the name is taken. */
  add(name: string, owner: string, visibility: Visibility, now?: number): Promise<WorkstationRecord>;
  get(name: string): Promise<WorkstationRecord | undefined>;
  /** By name; with `owner`, that user's only. */
  list(filter?: { owner?: string }): Promise<WorkstationRecord[]>;
  /** False for an unknown workstation. */
  setVisibility(name: string, visibility: Visibility): Promise<boolean>;
  remove(name: string): Promise<boolean>;
}

/** A session synced from a workstation, as the server keeps it. */
export interface SyncedSessionRecord {
  readonly workstation: string;
  readonly agent: string;
  readonly sid: string;
  readonly stamp: string;
  readonly head: SessionHead;
  /** When the server last stored it, milliseconds since the epoch. */
  readonly syncedAt: number;
}

export interface SyncedSearchQuery {
  /** The user's query, as the server's own search reads it (words, "phrases", -exclusions, prefix*). */
  readonly query: string;
  readonly workstations: readonly string[];
  readonly agents?: readonly string[];
  readonly targets?: readonly SearchTarget[];
  readonly sid?: string;
  readonly cwd?: string;
  readonly sinceAt?: number;
  readonly untilAt?: number;
  readonly limit: number;
  readonly count?: boolean;
}

export interface SyncedSearchRow {
  readonly workstation: string;
  readonly agent: string;
  readonly sid: string;
  readonly itemUuid: string;
  readonly itemType: string;
  readonly target: SearchTarget;
  readonly agentId?: string;
  readonly at?: number;
  /** Text around the matches, marked as the protocol's snippets are. */
  readonly snippet: string;
  /** Higher is better; comparable within one answer of one store. */
  readonly score: number;
  readonly head: SessionHead;
}

export interface SyncedPageQuery {
  readonly workstations: readonly string[];
  readonly agents?: readonly string[];
  /** Held in the session's folder, as a substring. */
  readonly cwd?: string;
  readonly sinceAt?: number;
  readonly active?: boolean;
  readonly now: number;
  readonly activeMs: number;
  readonly limit: number;
}

export interface SessionRef {
  readonly agent: string;
  readonly sid: string;
}

/** A change of one workstation's synced sessions: those named, or any when none are. */
export interface SyncedChange {
  readonly workstation: string;
  readonly sessions?: readonly SessionRef[];
}

/** A notice's text (PostgreSQL's payloads stop at 8,000 bytes: past that, the workstation alone). */
export function syncedNotice(workstation: string, sessions: readonly SessionRef[]): string {
  const named = JSON.stringify({ w: workstation, s: sessions.map((s) => [s.agent, s.sid]) });
  return named.length <= 7_000 ? named : JSON.stringify({ w: workstation });
}

/** A notice read back; undefined for one that is not a notice. */
export function readSyncedNotice(payload: string): SyncedChange | undefined {
  try {
    const n = JSON.parse(payload) as { w?: unknown; s?: unknown };
    if (typeof n.w !== 'string') return undefined;
    if (!Array.isArray(n.s)) return { workstation: n.w };
    const sessions = n.s.flatMap((p) =>
      Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string'
        ? [{ agent: p[0], sid: p[1] }]
        : [],
    );
    return { workstation: n.w, sessions };
  } catch {
    return undefined;
  }
}

/** Whether a workstation's sync is connected to some server process now, and when one last heard it. */
export interface WorkstationPresence {
  readonly workstation: string;
  readonly online: boolean;
  /** When a server process last heard from it (connected or leaving), milliseconds since the epoch. */
  readonly heardAt: number;
}

/** The heads of the sessions each workstation reads on its own machine, as it syncs them. */
export interface SyncedSessionRecords {
  /** What the server holds of one workstation, in no set order: each session's stamp, and of its
   * search documents when it holds some. */
  stamps(
    workstation: string,
  ): Promise<{ agent: string; sid: string; stamp: string; docs?: SyncedDocsState }[]>;
  /**
   * Stores search documents of a session it holds, all or none (a document of a key held is
   * replaced): with `replace`, in place of all it held. Answers what it then holds; refused
   * (StoreRefused) for a session it does not hold.
   */
  putDocs(
    workstation: string,
    session: { agent: string; sid: string },
    docs: { replace: boolean; low: number; high: number; docs: readonly SyncedDoc[] },
  ): Promise<SyncedDocsState>;
  /** The documents of the workstations named that match, best first; with `count`, how many match. */
  search(query: SyncedSearchQuery): Promise<{ rows: SyncedSearchRow[]; total?: number }>;
  /** Stores new and changed sessions of one workstation, all or none. */
  put(workstation: string, sessions: readonly SyncedSession[], now?: number): Promise<void>;
  /** Forgets sessions gone from a workstation; answers how many it held. */
  remove(workstation: string, sessions: readonly { agent: string; sid: string }[]): Promise<number>;
  /** The sessions of the workstations named (every workstation's when none are), in no set order. */
  list(workstations?: readonly string[]): Promise<SyncedSessionRecord[]>;
  /** The sessions of that id (of that agent, when given) across workstations, in no set order. */
  find(sid: string, agent?: string): Promise<SyncedSessionRecord[]>;
  /** The workstations some session is synced from, in no set order. */
  workstationsHeld(): Promise<string[]>;
  /**
   * The first `limit` sessions of the workstations named that pass the filters, latest activity
   * first (then by sid), and how many pass in all. A head is active while its workstation said so
   * within `activeMs` of `now`.
   */
  page(query: SyncedPageQuery): Promise<{ rows: SyncedSessionRecord[]; total: number }>;
  /**
   * Tells `listener` the workstation whose sessions changed (and which, when the notice could name
   * them), after each put or remove that changed some, by this process or (on a shared database)
   * any other; undefined when any may have (the database's notices were lost for a while). Answers
   * the function that stops it.
   */
  onChange(listener: (change: SyncedChange | undefined) => void): Promise<() => void>;
  /** The sessions named of one workstation that it holds, in no set order. */
  get(workstation: string, sessions: readonly SessionRef[]): Promise<SyncedSessionRecord[]>;
  /**
   * Notes, as of `now`, that server process `process` holds a sync connection of the workstation
   * (`connected`, said again while it lasts) or no longer does. A process that ends without saying
   * so stops being heard, which `presence` reads as gone.
   */
  heard(workstation: string, process: string, connected: boolean, now?: number): Promise<void>;
  /** Every workstation some process heard, in no set order: online while a process that holds its
   * connection said so within `freshMs` of `now`. */
  presence(now: number, freshMs: number): Promise<WorkstationPresence[]>;
}

export interface ServerStore {
  readonly drive: DriveLogRecords;
  readonly chat: ChatRecords;
  readonly rules: PermissionRuleRecords;
  readonly links: LinkRecords;
  readonly marks: MarkRecords;
  readonly tickets: TicketRecords;
  readonly users: UserRecords;
  readonly workstations: WorkstationRecords;
  readonly synced: SyncedSessionRecords;
  close(): Promise<void>;
}

/** A name taken, an owner unknown, a user still owning machines: what the caller did wrong. */
export class StoreRefused extends Error {}

export const ROLES: readonly Role[] = ['admin', 'member'];
export const VISIBILITIES: readonly Visibility[] = ['private', 'shared'];
