// The server's state in PostgreSQL, for a team's server: several server processes on one
// database, each with its own pool. What one store does on one machine, this does with
// transactions and row locks, so two processes appending to one session neither lose nor repeat.
import type pg from 'pg';
import { chatRecords } from './postgres-chat.js';
import { DRIVE_EVENTS_CHANNEL, EventFeed } from './postgres-event-feed.js';
import { migrate } from './postgres-migrations.js';
import { inTransaction, openPool } from './postgres-pool.js';
import {
  linkRecords,
  markRecords,
  permissionRuleRecords,
  ticketRecords,
  userRecords,
  workstationRecords,
} from './postgres-records.js';
import { SYNCED_CHANNEL, syncedSessionRecords } from './postgres-synced.js';
import {
  type AppendOutcome,
  type ChatRecords,
  type DriveLogRecords,
  type DrivenSessionRecord,
  type LinkRecords,
  type LoggedEvent,
  type MarkRecords,
  type PermissionRuleRecords,
  readSyncedNotice,
  type ServerStore,
  StoreRefused,
  type SyncedSessionRecords,
  type TicketRecords,
  type UserRecords,
  type WorkstationRecords,
} from './server-store.js';

export interface PostgresStoreOptions {
  /** A connection string, `postgresql://user@host/database`. */
  readonly connectionString: string;
  /** Connections this process may hold at once. */
  readonly maxConnections?: number;
}

export class PostgresServerStore implements ServerStore {
  readonly drive: DriveLogRecords;
  readonly chat: ChatRecords;
  readonly rules: PermissionRuleRecords;
  readonly links: LinkRecords;
  readonly marks: MarkRecords;
  readonly tickets: TicketRecords;
  readonly users: UserRecords;
  readonly workstations: WorkstationRecords;
  readonly synced: SyncedSessionRecords;

  private readonly feed: EventFeed;

  private constructor(
    readonly pool: pg.Pool,
    connectionString: string,
  ) {
    const drive = driveRecords(pool);
    this.feed = new EventFeed(
      connectionString,
      (sessionRef, afterSeq, limit) => drive.events(sessionRef, afterSeq, limit),
      undefined,
      [SYNCED_CHANNEL],
    );
    this.drive = {
      ...drive,
      subscribe: (sessionRef, afterSeq, listener) => this.feed.subscribe(sessionRef, afterSeq, listener),
    };
    this.chat = chatRecords(pool);
    this.rules = permissionRuleRecords(pool);
    this.links = linkRecords(pool);
    this.marks = markRecords(pool);
    this.tickets = ticketRecords(pool);
    this.users = userRecords(pool);
    this.workstations = workstationRecords(pool);
    this.synced = syncedSessionRecords(pool, (listener) =>
      this.feed.onChannel(SYNCED_CHANNEL, (payload) => {
        // A lost connection (no payload) may have missed anything: every workstation is read again.
        if (payload === undefined) listener(undefined);
        else {
          const change = readSyncedNotice(payload);
          if (change) listener(change);
        }
      }),
    );
  }

  /** Connects, brings the schema up to date, and answers the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresServerStore> {
    const pool = openPool(options.connectionString, options.maxConnections);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw new Error(
        `cannot open the PostgreSQL database ${shown(options.connectionString)}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    return new PostgresServerStore(pool, options.connectionString);
  }

  async close(): Promise<void> {
    await this.feed.close();
    await this.pool.end();
  }
}

/** A connection string as an error may show it: without its password. */
const shown = (connectionString: string): string =>
  connectionString.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1:***@');

interface DrivenSessionDb {
  session_ref: string;
  workstation: string;
  agent_key: string;
  bridge: string;
  cwd: string;
  native_session_id: string | null;
  held_seq: number;
  turn_running: boolean;
  closed: boolean;
}

const toDriven = (r: DrivenSessionDb): DrivenSessionRecord => ({
  sessionRef: r.session_ref,
  workstation: r.workstation,
  agentKey: r.agent_key,
  bridge: r.bridge,
  cwd: r.cwd,
  nativeSessionId: r.native_session_id,
  heldSeq: r.held_seq,
  turnRunning: r.turn_running,
  closed: r.closed,
});

function driveRecords(pool: pg.Pool): Omit<DriveLogRecords, 'subscribe'> {
  return {
    async upsert(record) {
      await pool.query(
        `INSERT INTO driven_sessions (session_ref, workstation, agent_key, bridge, cwd, native_session_id)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_ref) DO UPDATE SET workstation = excluded.workstation,
           native_session_id = COALESCE(excluded.native_session_id, driven_sessions.native_session_id),
           closed = false`,
        [
          record.sessionRef,
          record.workstation,
          record.agentKey,
          record.bridge,
          record.cwd,
          record.nativeSessionId,
        ],
      );
    },
    async get(sessionRef) {
      const { rows } = await pool.query<DrivenSessionDb>(
        'SELECT * FROM driven_sessions WHERE session_ref = $1',
        [sessionRef],
      );
      return rows[0] && toDriven(rows[0]);
    },
    async ofWorkstation(workstation) {
      const { rows } = await pool.query<DrivenSessionDb>(
        'SELECT * FROM driven_sessions WHERE workstation = $1 AND NOT closed',
        [workstation],
      );
      return rows.map(toDriven);
    },
    async setNativeSessionId(sessionRef, nativeSessionId) {
      await pool.query('UPDATE driven_sessions SET native_session_id = $1 WHERE session_ref = $2', [
        nativeSessionId,
        sessionRef,
      ]);
    },
    async setTurnRunning(sessionRef, running) {
      await pool.query('UPDATE driven_sessions SET turn_running = $1 WHERE session_ref = $2', [
        running,
        sessionRef,
      ]);
    },
    async close(sessionRef) {
      await pool.query(
        'UPDATE driven_sessions SET closed = true, turn_running = false WHERE session_ref = $1',
        [sessionRef],
      );
    },
    append: (sessionRef, events) => inTransaction(pool, (client) => appendEvents(client, sessionRef, events)),
    async heldSeq(sessionRef) {
      const { rows } = await pool.query<{ held_seq: number }>(
        'SELECT held_seq FROM driven_sessions WHERE session_ref = $1',
        [sessionRef],
      );
      return rows[0]?.held_seq ?? 0;
    },
    async events(sessionRef, afterSeq = 0, limit = 10_000) {
      const { rows } = await pool.query<{
        seq: number;
        event_name: string;
        payload: Record<string, unknown>;
      }>(
        'SELECT seq, event_name, payload FROM driven_events WHERE session_ref = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [sessionRef, afterSeq, limit],
      );
      return rows.map((r) => ({ seq: r.seq, eventName: r.event_name, payload: r.payload }));
    },
  };
}

/**
 * One append, inside a transaction: the session's row is locked first, so appends of one session
 * from any number of connections take turns, and each sees the held seq the one before left.
 */
async function appendEvents(
  client: pg.PoolClient,
  sessionRef: string,
  events: readonly LoggedEvent[],
): Promise<AppendOutcome> {
  const { rows } = await client.query<{ held_seq: number }>(
    'SELECT held_seq FROM driven_sessions WHERE session_ref = $1 FOR UPDATE',
    [sessionRef],
  );
  if (rows[0] === undefined) throw new StoreRefused(`no driven session ${sessionRef} to append events to`);
  let held = rows[0].held_seq;
  const fresh: LoggedEvent[] = [];
  let repeats = 0;
  let gapAt: number | undefined;
  for (const event of events) {
    if (event.seq <= held) {
      repeats++;
      continue;
    }
    if (event.seq !== held + 1) {
      gapAt = event.seq;
      break;
    }
    fresh.push(event);
    held = event.seq;
  }
  if (fresh.length > 0) {
    await client.query(
      `INSERT INTO driven_events (session_ref, seq, event_name, payload)
       SELECT $1, seq, event_name, payload::json FROM unnest($2::bigint[], $3::text[], $4::text[])
         AS e (seq, event_name, payload)`,
      [
        sessionRef,
        fresh.map((e) => e.seq),
        fresh.map((e) => e.eventName),
        fresh.map((e) => JSON.stringify(e.payload)),
      ],
    );
    await client.query('UPDATE driven_sessions SET held_seq = $1 WHERE session_ref = $2', [held, sessionRef]);
    // Sent when the transaction commits, to every process listening (this one too).
    await client.query('SELECT pg_notify($1, $2)', [
      DRIVE_EVENTS_CHANNEL,
      JSON.stringify({ s: sessionRef, h: held }),
    ]);
  }
  const outcome = { stored: fresh.length, repeats, heldSeq: held };
  return gapAt === undefined ? outcome : { ...outcome, gapAt };
}
