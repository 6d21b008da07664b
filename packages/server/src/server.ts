// One server: the index, the catalog that keeps it in step with the agents' files, the streams, and
// HTTP and WebSocket on one port.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type SessionDumpFile,
  SessionDumpFile as SessionDumpFileSchema,
  SYNC_PATH,
  validate,
} from '@cairn/protocol';
import { secureCairnHome } from '@cairn/runner/owner-only';
import {
  adapterTable,
  cairnHome,
  instanceId,
  listSessions,
  nodePlatform,
  renderDumpMarkdown,
  type SessionPlatform,
} from '@cairn/transcript';
import { CHAT_PATH, ChatService } from './chat/chat-service.js';
import type { Clock } from './chat/chat-session.js';
import { type DemoHome, makeDemoHome } from './demo/demo-home.js';
import { DRIVE_EVENTS_PATH, DriveEventsEndpoint } from './drive/event-feed-socket.js';
import { AGENT_PATH, type Drive, LOCAL_WORKSTATION, startDrive, type WireLimits } from './drive/index.js';
import { StoreTickets } from './drive/store-tickets.js';
import { listTickets } from './drive/tickets.js';
import { ConnectionGuard, type ConnectionLimits } from './gate/connections.js';
import { createHttpHandler } from './gate/http.js';
import { admit, type FindUser, rememberPerson, workstationAccess } from './gate/people.js';
import { isLoopback, makeGate, persistentToken } from './gate/security.js';
import { WsHub } from './gate/ws.js';
import { IndexDb } from './indexing/index-db.js';
import { IndexWorkers, indexWorkerFile } from './indexing/index-workers.js';
import { SearchThread, searchWorkerFile } from './indexing/search-thread.js';
import { driveAccess } from './ops/driven.js';
import { HANDOFF_MAX_BYTES } from './ops/handoff.js';
import { warmUsage } from './ops/usage.js';
import { Catalog } from './reader/catalog.js';
import { handoffDocument } from './reader/handoff-document.js';
import { lastPort, removeDaemonRecord, writeDaemonRecord } from './storage/daemon-record.js';
import { LinksStore, linksPath } from './storage/links-store.js';
import { MarksStore } from './storage/marks-store.js';
import type { ServerStore } from './storage/server-store.js';
import { SqliteServerStore } from './storage/sqlite-store.js';
import { SessionsTopic } from './streams/sessions-topic.js';
import { Streams } from './streams/streams.js';
import type { PresenceTiming } from './sync/presence.js';
import { SyncEndpoint, type SyncLimits } from './sync/sync-endpoint.js';

export const SERVER_VERSION = '0.1.0';

/**
 * `packages/web/dist`, both from the sources and from the bundle two folders down from the root.
 * It lives in this file because this file sits one folder under the package's root, as the
 * bundle's chunks sit one folder under the CLI's.
 */
export const defaultWebRoot = (): string => fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface ServerOptions {
  /** 0 picks a free port; absent, the port of the last run when it is free, else a free one. */
  readonly port?: number;
  /** Loopback unless told; another address is reachable from the network, guarded by the token alone. */
  readonly host?: string;
  /** The environment the agents' homes and `$CAIRN_HOME` come from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
  /** `$CAIRN_HOME` from the environment when absent. */
  readonly cairnHome?: string;
  /** `CAIRN_TOKEN`, else the one kept in `$CAIRN_HOME/token` across restarts, when absent. */
  readonly token?: string;
  readonly webRoot?: string;
  /** Progress and problems, one line each (stderr for `cairn serve`). */
  readonly log?: (line: string) => void;
  readonly rescanMs?: number;
  readonly checkReplies?: boolean;
  /** Wait for the first index build before answering; for tests and scripts. */
  readonly waitForIndex?: boolean;
  /** With no agent session at all in the homes, serve generated demo sessions (default true). */
  readonly demo?: boolean;
  /** Called when a client asks the server to stop (`shutdown`), after it closed. */
  readonly onShutdown?: () => void;
  /** The chat's clock (its interval scheduler); the real one when absent. For tests. */
  readonly clock?: Clock;
  /** Run a workstation inside the server, so local agents can be driven with no setup (default true;
   * false with a `database`, where every server process would otherwise claim the name `local`). */
  readonly localWorkstation?: boolean;
  /** The built worker file sessions are read whole on; the one beside this code when absent, none
   * with false (everything on this thread, as when running from source). */
  readonly indexWorker?: string | false;
  /** The built worker file searches run on; the one beside this code when absent, none with false. */
  readonly searchWorker?: string | false;
  /** How long one search may run on the search threads (SEARCH_BUDGET_MS when absent). */
  readonly searchBudgetMs?: number;
  /** The largest session (its files' bytes) opened in the reader; from the heap's limit when absent. */
  readonly maxOpenBytes?: number;
  /** The bytes of growing sessions nobody follows whose translations the catalog keeps. */
  readonly tailBytes?: number;
  /** Sockets held at once and the time one may stay without the token; from the open-file limit
   * when absent. */
  readonly connections?: ConnectionLimits;
  /** A PostgreSQL connection string (`postgres://…`): the server's state there, shared with the
   * other server processes on it. The SQLite files under `$CAIRN_HOME` when absent. */
  readonly database?: string;
  /** Workstations connected at once, each one's events a second (and burst), and what one may have
   * waiting to be stored; past them a workstation is refused and told which. Defaults when absent. */
  readonly wireLimits?: Partial<WireLimits>;
  /** What `/sync` takes from workstations; the defaults when absent. */
  readonly syncLimits?: Partial<SyncLimits>;
  /** How often a syncing workstation's connection is said to last, and for how long that counts. */
  readonly presence?: PresenceTiming;
}

export interface RunningServer {
  readonly url: string;
  readonly token: string;
  readonly port: number;
  readonly catalog: Catalog;
  readonly home: string;
  /** The drive side: the agent wire's server half and the local workstation. */
  readonly drive: Drive;
  /** The temporary home of the demo sessions, when the server serves them. */
  readonly demoHome?: string;
  /** Settles once the server has stopped, by `close()` or by a client's `shutdown`. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Whether any agent has at least one session in the homes `platform` names. */
async function hasAnySession(platform: SessionPlatform): Promise<boolean> {
  for await (const entry of listSessions(platform)) if (!('ref' in entry)) return true;
  return false;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  let env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  let platform: SessionPlatform = nodePlatform(
    options.homeDir === undefined ? { env } : { env, homeDir: options.homeDir },
  );
  let home = options.cairnHome ?? cairnHome(env, platform.homeDir);
  let demo: DemoHome | undefined;
  if (options.demo !== false && !(await hasAnySession(platform))) {
    demo = makeDemoHome();
    env = { ...env, ...demo.env };
    platform = nodePlatform({ env, homeDir: demo.home });
    home = demo.cairnHome;
    log(`cairn: no agent sessions found; serving demo sessions written to ${demo.home}`);
  }
  secureCairnHome(home);
  const db = IndexDb.open(join(home, 'index.sqlite'), log);
  const instance = await instanceId(home);
  if (!instance.ok) throw new Error(instance.error.message);

  const workerFile = options.indexWorker === undefined ? indexWorkerFile() : options.indexWorker || undefined;
  const workers = workerFile ? new IndexWorkers(workerFile, platform) : undefined;
  const searchFile =
    options.searchWorker === undefined ? searchWorkerFile() : options.searchWorker || undefined;
  const searches = searchFile ? new SearchThread(searchFile, options.searchBudgetMs) : undefined;
  const catalog = new Catalog({
    platform,
    db,
    log,
    ...(workers ? { workers } : {}),
    ...(searches ? { searches } : {}),
    ...(options.rescanMs === undefined ? {} : { rescanMs: options.rescanMs }),
    ...(options.tailBytes === undefined ? {} : { tailBytes: options.tailBytes }),
  });
  const startedAt = Date.now();
  // The daemon serves while it lists the sessions on disk (seconds for a long history on a first
  // start): clients see the list fill in, and a session asked for by id is looked for once listed.
  const started = catalog.start().catch((cause) => {
    log(`catalog: could not list the sessions: ${(cause as Error).stack ?? cause}`);
  });
  // The usage reports' rows are taken from the index in the background, ahead of the first report.
  warmUsage(catalog, () => db.usageSessions()).catch((cause) =>
    log(`usage: could not read the index's usage rows: ${cause}`),
  );
  if (options.waitForIndex) {
    await started;
    await catalog.settled();
  }

  const streams = new Streams(catalog, {
    instance: instance.value,
    ...(options.maxOpenBytes === undefined ? {} : { maxOpenBytes: options.maxOpenBytes }),
  });
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? persistentToken(home, env, log);
  let gate = makeGate(token, options.port ?? 0, host);
  const agentHomes = adapterTable().flatMap((a) => a.homes(platform));

  let closing: Promise<void> | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const localWorkstation = options.localWorkstation ?? options.database === undefined;
  const store: ServerStore = options.database
    ? // Loaded only for a shared database: one person's daemon never starts the PostgreSQL client.
      await (await import('./storage/postgres-store.js')).PostgresServerStore.open({
        connectionString: options.database,
      })
    : new SqliteServerStore(home);
  // The list's live changes: the catalog's sessions, and those the workstations sync.
  const sessions = new SessionsTopic(catalog, undefined, store.synced, options.presence);
  await sessions.ready;
  // A team's server checks workstations' tickets and people's tokens against its database.
  const storeTickets = options.database ? new StoreTickets(store.tickets, log) : undefined;
  const findUser: FindUser | undefined = options.database ? (token) => store.users.byToken(token) : undefined;
  // What each person may see and drive: a member their own workstations and the shared ones.
  const access = options.database ? workstationAccess(() => store.workstations.list()) : undefined;
  const drive = startDrive({
    cairnHome: home,
    drive: store.drive,
    env,
    log,
    localWorkstation,
    ...(storeTickets ? { ticketOwner: storeTickets.owner } : {}),
    ...(options.wireLimits ? { limits: options.wireLimits } : {}),
  });
  const chat = new ChatService({
    storePath: join(home, 'chat.sqlite'),
    cairnHome: home,
    wire: drive.wire,
    workstation: LOCAL_WORKSTATION,
    localInProcess: localWorkstation,
    knownWorkstations: storeTickets ? storeTickets.names : () => listTickets(home).map((t) => t.name),
    platform,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.checkReplies ? { checkEvents: true } : {}),
    ...(access ? { access } : {}),
    handoffs: {
      build: (args) => handoffDocument(catalog, home, args),
      maxBytes: HANDOFF_MAX_BYTES,
      keep: (link) => {
        const links = new LinksStore(linksPath(home));
        try {
          links.add(link);
        } finally {
          links.close();
        }
      },
    },
  });
  // Workstations send the heads of their machines' sessions, for the list to cover every machine.
  const sync = new SyncEndpoint({
    store: store.synced,
    ticketOwner: drive.ticketOwner,
    log,
    ...(options.syncLimits ? { limits: options.syncLimits } : {}),
    ...(options.presence ? { presence: options.presence } : {}),
    cameOrLeft: () => sessions.presenceChanged(),
  });
  // Browsers follow a driven session's event log from any process on the database.
  const driveEvents = new DriveEventsEndpoint({ drive: store.drive, log, ...(access ? { access } : {}) });
  // The ops read the drive's record of its sessions from the store.
  const driven = driveAccess({
    wire: drive.wire,
    openOf: (workstation) => store.drive.ofWorkstation(workstation),
    workstations: () => [
      LOCAL_WORKSTATION,
      ...(storeTickets ? storeTickets.names() : listTickets(home).map((t) => t.name)),
    ],
  });
  // The user's marks, in a database of their own that an index rebuild never touches.
  let marks: MarksStore | undefined;
  const marksStore = (): MarksStore => {
    marks ??= new MarksStore(join(home, 'marks.sqlite'));
    return marks;
  };
  /** The port `daemon.json` names, once written. */
  let recorded: number | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      chat.close();
      await sync.close();
      driveEvents.close();
      storeTickets?.close();
      await drive.close();
      await store.close();
      hub.close();
      marks?.close();
      streams.close();
      sessions.close();
      catalog.close();
      await workers?.close();
      await searches?.close();
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await stopped;
      if (recorded !== undefined) removeDaemonRecord(home, { pid: process.pid, port: recorded });
      db.close();
      demo?.remove();
      markClosed();
    })();
    return closing;
  };

  const hub: WsHub = new WsHub({
    gate: () => gate,
    log,
    ...(options.checkReplies === undefined ? {} : { checkReplies: options.checkReplies }),
    context: {
      catalog,
      streams,
      sessions,
      drive: driven,
      ...(access ? { access } : {}),
      marks: marksStore,
      synced: store.synced,
      server: {
        instance: instance.value,
        version: SERVER_VERSION,
        startedAt,
        home,
        agentHomes,
        clients: () => hub.connections.size,
        shutdown: () => {
          void close().then(() => options.onShutdown?.());
        },
      },
    },
  });

  const http = createServer(
    // Slow or silent clients are cut off soon; the checks run every second instead of every 30.
    { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 },
    createHttpHandler({
      gate: () => gate,
      webRoot: options.webRoot ?? defaultWebRoot(),
      dumpsDir: join(home, 'dumps'),
      renderDumpMarkdown: (json) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          return { ok: false, message: 'the dump file is not JSON' };
        }
        const file = validate(SessionDumpFileSchema, parsed);
        if (!file.ok) return { ok: false, message: `not a dump file: ${file.error.message}` };
        return { ok: true, text: renderDumpMarkdown(file.value as SessionDumpFile) };
      },
      onAuthorized: (req) => guard.trust(req.socket),
      ...(findUser ? { findUser } : {}),
      api: (req, res, url) => chat.handleApi(req, res, url),
      onUnauthorized: (req) => guard.active(req.socket),
    }),
  );
  const guard = new ConnectionGuard(http, options.connections);
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === AGENT_PATH || url.pathname === SYNC_PATH) {
      // A ticket in the database is looked up before the endpoint's own (synchronous) check.
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (storeTickets && bearer !== undefined) await storeTickets.check(bearer).catch(() => undefined);
      const endpoint = url.pathname === AGENT_PATH ? drive.endpoint : sync;
      if (endpoint.handleUpgrade(req, socket, head)) guard.trust(req.socket);
      return;
    }
    const admitted = await admit(gate, findUser, url, req.headers);
    if (admitted.ok) {
      rememberPerson(req, admitted.person);
      guard.trust(req.socket);
    }
    if (url.pathname === CHAT_PATH || url.pathname === DRIVE_EVENTS_PATH) {
      if (!admitted.ok) {
        socket.end(
          `HTTP/1.1 ${admitted.refusal.status} Refused\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${admitted.refusal.reason}\n`,
        );
        return;
      }
      if (url.pathname === CHAT_PATH) await chat.handleUpgrade(req, socket, head);
      else await driveEvents.handleUpgrade(req, socket, head);
      return;
    }
    hub.handleUpgrade(req, socket, head);
  };
  http.on('upgrade', (req, socket, head) => {
    upgrade(req, socket, head).catch((cause: unknown) => {
      log(`cairn: an upgrade failed: ${(cause as Error).stack ?? cause}`);
      socket.destroy();
    });
  });

  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      const failed = (cause: Error) => reject(cause);
      http.once('error', failed);
      http.listen(p, host, () => {
        http.off('error', failed);
        resolve();
      });
    });
  // The same port as last time keeps open tabs working (their origin includes it); taken, any other.
  const preferred = options.port ?? lastPort(home);
  try {
    await listen(preferred ?? 0);
  } catch (cause) {
    if (options.port !== undefined || (cause as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw cause;
    log(`cairn: port ${preferred} of the last run is taken; serving on another`);
    await listen(0);
  }
  const port = (http.address() as AddressInfo).port;
  gate = makeGate(token, port, host);
  const shownHost = isLoopback(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const base = `http://${shownHost}:${port}/`;
  const url = `${base}?token=${token}`;
  try {
    writeDaemonRecord(home, {
      pid: process.pid,
      port,
      base,
      startedAt: new Date().toISOString(),
      version: SERVER_VERSION,
    });
    recorded = port;
  } catch (cause) {
    log(`cairn: cannot record the running daemon in ${home}: ${(cause as Error).message}`);
  }
  const running = { url, token, port, catalog, home, drive, closed, close };
  return demo ? { ...running, demoHome: demo.home } : running;
}
