// The server's state on one machine: the SQLite files `$CAIRN_HOME` already holds (the drive's
// log, the chat, links, marks, the tickets' file), read and written through the classes that own
// them today, so the data stays where it is; plus `accounts.sqlite` for people and workstations.
// Each call runs at once on this thread; the promises only give it the interface's shape.
import { join } from 'node:path';
import { ChatStore } from '../chat/chat-store.js';
import { PermissionRuleStore } from '../chat/permission-rule-store.js';
import { EventLog } from '../drive/event-log.js';
import { listTickets, makeTicket, revokeTickets, storedTicketOwner } from '../drive/tickets.js';
import { LinksStore, linksPath } from './links-store.js';
import { MarksStore } from './marks-store.js';
import type {
  AppendOutcome,
  ChatRecords,
  DriveLogRecords,
  EventsListener,
  LinkRecords,
  LoggedEvent,
  MarkRecords,
  PermissionRuleRecords,
  ServerStore,
  SessionRef,
  SyncedChange,
  SyncedSessionRecords,
  TicketRecords,
  UserRecords,
  WorkstationRecords,
} from './server-store.js';
import { StoreRefused } from './server-store.js';
import { SqliteAccounts } from './sqlite-accounts.js';
import { SqliteSynced } from './sqlite-synced.js';

/** The files of a cairn home, as the daemon names them. */
export const sqliteStorePaths = (cairnHome: string) => ({
  drive: join(cairnHome, 'drive.sqlite'),
  chat: join(cairnHome, 'chat.sqlite'),
  links: linksPath(cairnHome),
  marks: join(cairnHome, 'marks.sqlite'),
  accounts: join(cairnHome, 'accounts.sqlite'),
  synced: join(cairnHome, 'synced.sqlite'),
});

export class SqliteServerStore implements ServerStore {
  readonly drive: DriveLogRecords;
  readonly chat: ChatRecords;
  readonly rules: PermissionRuleRecords;
  readonly links: LinkRecords;
  readonly marks: MarkRecords;
  readonly tickets: TicketRecords;
  readonly users: UserRecords;
  readonly workstations: WorkstationRecords;
  readonly synced: SyncedSessionRecords;
  private readonly closers: (() => void)[] = [];

  constructor(cairnHome: string) {
    const paths = sqliteStorePaths(cairnHome);
    const log = new EventLog(paths.drive);
    this.closers.push(() => log.shutdown());
    // The other files are opened when first used, as the daemon has always opened them: a damaged
    // one then fails the calls that need it, with its name, rather than the daemon's start.
    const chat = this.opener(() => new ChatStore(paths.chat));
    // The rules' table lives in the chat's file, as the chat service opens it; config.json's rules
    // are read above this layer.
    const rules = this.opener(() => new PermissionRuleStore(paths.chat, undefined));
    const links = this.opener(() => new LinksStore(paths.links));
    const marks = this.opener(() => new MarksStore(paths.marks));
    const accounts = this.opener(() => new SqliteAccounts(paths.accounts));
    const synced = this.opener(() => new SqliteSynced(paths.synced));
    this.drive = driveOf(log);
    this.chat = chatOf(chat);
    this.rules = {
      list: async (filter = {}) =>
        rules()
          .list()
          .filter(
            (r) =>
              (filter.workstation === undefined || r.workstation === filter.workstation) &&
              (filter.projectPath === undefined || r.projectPath === filter.projectPath),
          ),
      remember: async (workstation, projectPath, effect, rule) =>
        rules().remember(workstation, projectPath, effect, rule),
      revoke: async (id) => rules().revoke(id),
    };
    this.links = {
      add: async (link) => links().add(link),
      read: async (filter) => links().read(filter),
    };
    this.marks = {
      read: async (filter) => marks().read(filter),
      write: async (agent, sid, change, now) => marks().write(agent, sid, change, now),
    };
    this.tickets = {
      issue: async (name, options) => makeTicket(cairnHome, name, options),
      owner: async (ticket) => storedTicketOwner(cairnHome, ticket),
      revoke: async (name) => revokeTickets(cairnHome, name),
      list: async () => listTickets(cairnHome),
    };
    this.users = {
      add: async (name, role, now) => accounts().addUser(name, role, now),
      renewToken: async (name) => accounts().renewToken(name),
      get: async (name) => accounts().user(name),
      byToken: async (token) => accounts().userByToken(token),
      list: async () => accounts().users(),
      remove: async (name) => accounts().removeUser(name),
    };
    this.workstations = {
      add: async (name, owner, visibility, now) => accounts().addWorkstation(name, owner, visibility, now),
      get: async (name) => accounts().workstation(name),
      list: async (filter) => accounts().workstations(filter),
      setVisibility: async (name, visibility) => accounts().setVisibility(name, visibility),
      remove: async (name) => accounts().removeWorkstation(name),
    };
    // One process owns the file, so its listeners are told by the change itself.
    const syncListeners = new Set<(change: SyncedChange | undefined) => void>();
    const tell = (workstation: string, sessions: readonly SessionRef[]) => {
      const change = { workstation, sessions: sessions.map((s) => ({ agent: s.agent, sid: s.sid })) };
      for (const listener of syncListeners) setImmediate(() => listener(change));
    };
    this.synced = {
      stamps: async (workstation) => synced().stamps(workstation),
      async put(workstation, sessions, now = Date.now()) {
        synced().put(workstation, sessions, now);
        if (sessions.length > 0) tell(workstation, sessions);
      },
      async remove(workstation, sessions) {
        const removed = synced().remove(workstation, sessions);
        if (removed > 0) tell(workstation, sessions);
        return removed;
      },
      list: async (workstations) => synced().list(workstations),
      find: async (sid, agent) => synced().find(sid, agent),
      get: async (workstation, sessions) => synced().get(workstation, sessions),
      putDocs: async (workstation, session, docs) => synced().putDocs(workstation, session, docs),
      search: async (query) => synced().search(query),
      workstationsHeld: async () => synced().workstationsHeld(),
      page: async (query) => synced().page(query),
      heard: async (workstation, process, connected, now = Date.now()) =>
        synced().heard(workstation, process, connected, now),
      presence: async (now, freshMs) => synced().presence(now, freshMs),
      async onChange(listener) {
        syncListeners.add(listener);
        return () => syncListeners.delete(listener);
      },
    };
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) close();
  }

  /** A store of one file, opened on its first use and closed with the rest. */
  private opener<T extends { close(): void }>(open: () => T): () => T {
    let opened: T | undefined;
    this.closers.push(() => {
      opened?.close();
      opened = undefined;
    });
    return () => {
      opened ??= open();
      return opened;
    };
  }
}

/** The drive records over an event log of its own (`cairn run`, tests), as the store gives them. */
export function driveOf(log: EventLog): DriveLogRecords {
  // One process owns the file, so its subscribers are told by the append itself.
  const subscribers = new Map<string, Set<{ delivered: number; listener: EventsListener }>>();
  const deliver = (sessionRef: string, subscriber: { delivered: number; listener: EventsListener }) => {
    for (;;) {
      const events = log.events(sessionRef, subscriber.delivered, 1_000);
      if (events.length === 0) return;
      subscriber.delivered = events.at(-1)!.seq;
      try {
        subscriber.listener(events);
      } catch {
        // A subscriber that throws does not stop the others, nor the append that told it.
      }
    }
  };
  return {
    upsert: async (record) => log.upsert(record),
    get: async (sessionRef) => log.get(sessionRef),
    ofWorkstation: async (workstation) => log.ofWorkstation(workstation),
    setNativeSessionId: async (sessionRef, id) => log.setNativeSessionId(sessionRef, id),
    setTurnRunning: async (sessionRef, running) => log.setTurnRunning(sessionRef, running),
    close: async (sessionRef) => log.close(sessionRef),
    async append(sessionRef: string, events: readonly LoggedEvent[]): Promise<AppendOutcome> {
      // The log keeps the held seq of a session it has seen; one it has not must exist first.
      if (log.heldSeq(sessionRef) === 0 && !log.get(sessionRef))
        throw new StoreRefused(`no driven session ${sessionRef} to append events to`);
      let stored = 0;
      let repeats = 0;
      let gapAt: number | undefined;
      for (const event of events) {
        const result = log.append(sessionRef, event);
        if (result === 'gap') {
          gapAt = event.seq;
          break;
        }
        if (result === 'stored') stored++;
        else repeats++;
      }
      log.commit();
      if (stored > 0)
        for (const subscriber of subscribers.get(sessionRef) ?? []) deliver(sessionRef, subscriber);
      const heldSeq = log.heldSeq(sessionRef);
      return gapAt === undefined ? { stored, repeats, heldSeq } : { stored, repeats, gapAt, heldSeq };
    },
    heldSeq: async (sessionRef) => log.heldSeq(sessionRef),
    events: async (sessionRef, afterSeq, limit) => log.events(sessionRef, afterSeq, limit),
    async subscribe(sessionRef, afterSeq, listener) {
      const subscriber = { delivered: afterSeq, listener };
      const set = subscribers.get(sessionRef) ?? new Set();
      subscribers.set(sessionRef, set);
      set.add(subscriber);
      // Told on the next turn, as a listener on a database would be: never inside this call.
      setImmediate(() => {
        if (set.has(subscriber)) deliver(sessionRef, subscriber);
      });
      return () => {
        set.delete(subscriber);
      };
    },
  };
}

function chatOf(store: () => ChatStore): ChatRecords {
  return {
    project: async (path, name) => store().project(path, name),
    projectById: async (id) => store().projectById(id),
    projects: async () => store().projects(),
    createSession: async (projectId, agent, nativeSessionId, title, workstation) =>
      store().createSession(projectId, agent, nativeSessionId, title, workstation),
    session: async (id) => store().session(id),
    sessionByNative: async (agent, nativeSessionId) => store().sessionByNative(agent, nativeSessionId),
    sessions: async (projectId, archived) => store().sessions(projectId, archived),
    setNativeSessionId: async (id, nativeSessionId) => store().setNativeSessionId(id, nativeSessionId),
    rename: async (id, title) => store().rename(id, title),
    renameByPerson: async (id, title) => store().renameByPerson(id, title),
    archive: async (id, archived) => store().archive(id, archived),
    deleteSession: async (id) => store().deleteSession(id),
    async addMessage(message) {
      // SQLite does not hold the chat's file to its foreign keys; the interface refuses alike.
      if (!store().session(message.sessionId))
        throw new StoreRefused(`no chat session ${message.sessionId} to add a message to`);
      return store().addMessage(message);
    },
    messages: async (sessionId) => store().messages(sessionId),
    workstations: async () => store().workstations(),
    settlePermission: async (sessionId, settled) => store().settlePermission(sessionId, settled),
    settledPermissions: async (sessionId) => store().settledPermissions(sessionId),
    setConfigValue: async (sessionId, configId, value) => store().setConfigValue(sessionId, configId, value),
    forgetConfigValue: async (sessionId, configId) => store().forgetConfigValue(sessionId, configId),
    configValues: async (sessionId) => store().configValues(sessionId),
  };
}
