// What workstations send about their sessions, taken in: each event stored in order in the log,
// acked soon after and handed on; a gap asks the workstation for a backfill, and after a reconnect
// each open session it offers is reopened with one from what the log holds.
import { randomUUID } from 'node:crypto';
import type { AgentFrameOf } from '@cairn/protocol';
import type { AgentWireServerOptions, DriveNotice } from './agent-wire-server.js';
import type { LoggedEvent } from './event-log.js';
import type { Link } from './wire-link.js';

export class EventIntake {
  /** Which session a backfill (keyed by its `agent_open` id) belongs to. */
  private readonly pendingSessionRef = new Map<string, string>();
  /** Turns to end once their backfill is in, keyed by the reopening request's id. */
  private readonly endAfterBackfill = new Map<string, string>();
  private readonly backfilling = new Set<string>();

  constructor(
    private readonly options: AgentWireServerOptions,
    private readonly notify: (sessionRef: string, notice: DriveNotice) => void,
  ) {}

  /** The session a backfill frame fills, if it answers a backfill asked of this workstation. */
  backfillOf(link: Link, id: string): string | undefined {
    return link.pending.has(id) ? this.pendingSessionRef.get(id) : undefined;
  }

  /**
   * After a reconnect: every open session the offer lists is re-attached with a backfill from
   * what the log holds; a session with a running turn that the offer leaves out has lost it.
   */
  onResumeOffer(link: Link, offered: AgentFrameOf<'agent_resume_offer'>['sessions']): void {
    const listed = new Map(offered.map((s) => [s.sessionRef, s]));
    for (const record of this.options.log.ofWorkstation(link.name!)) {
      const entry = listed.get(record.sessionRef);
      if (!entry) {
        if (record.turnRunning) {
          this.options.log.setTurnRunning(record.sessionRef, false);
          this.notify(record.sessionRef, {
            kind: 'lost',
            sessionRef: record.sessionRef,
            action: 'missing_from_offer',
            error: 'the workstation no longer has this session; its running turn was lost',
          });
        }
        continue;
      }
      const id = randomUUID();
      this.pendingSessionRef.set(id, record.sessionRef);
      // The workstation restarted under a running turn: its agent is gone and no end will come.
      if (!entry.agentAlive && record.turnRunning) this.endAfterBackfill.set(id, record.sessionRef);
      const frame: AgentFrameOf<'agent_open'> = {
        t: 'agent_open',
        id,
        sessionRef: record.sessionRef,
        agentKey: record.agentKey,
        bridge: record.bridge,
        cwd: record.cwd,
        shell: process.env.SHELL ?? '/bin/sh',
        ...(record.nativeSessionId ? { nativeSessionId: record.nativeSessionId } : {}),
        resumeFromSeq: this.options.log.heldSeq(record.sessionRef),
        backfill: true,
      };
      void link.request(frame, 120_000).then((reply) => {
        this.pendingSessionRef.delete(id);
        this.afterBackfill(id);
        if (reply.t === 'agent_opened' && !reply.ok) {
          this.notify(record.sessionRef, {
            kind: 'lost',
            sessionRef: record.sessionRef,
            action: 'reopen_failed',
            error: reply.error ?? 'the session could not be reopened',
          });
        }
      });
    }
  }

  /**
   * A backfill is in: a turn its agent can no longer finish ends now, with what the journal held
   * and before the reopened agent replays its history, which is then no part of that reply.
   */
  afterBackfill(id: string): void {
    const sessionRef = this.endAfterBackfill.get(id);
    if (sessionRef === undefined) return;
    this.endAfterBackfill.delete(id);
    if (!this.options.log.get(sessionRef)?.turnRunning) return;
    this.options.log.setTurnRunning(sessionRef, false);
    this.notify(sessionRef, {
      kind: 'lost',
      sessionRef,
      action: 'agent_gone',
      error: lostMessage('agent_gone'),
    });
  }

  /** Stores one event in order, acks it soon after, and hands it on; a gap asks for a backfill. */
  store(link: Link, sessionRef: string, event: LoggedEvent): void {
    const result = this.options.log.append(sessionRef, event);
    if (result === 'repeat') return;
    if (result === 'gap') {
      this.requestBackfill(link, sessionRef);
      return;
    }
    if (event.eventName === 'agent_turn_done') this.options.log.setTurnRunning(sessionRef, false);
    this.scheduleAck(link, sessionRef);
    this.notify(sessionRef, { kind: 'event', sessionRef, event });
  }

  private requestBackfill(link: Link, sessionRef: string): void {
    if (this.backfilling.has(sessionRef)) return;
    const record = this.options.log.get(sessionRef);
    if (!record) return;
    this.backfilling.add(sessionRef);
    const id = randomUUID();
    this.pendingSessionRef.set(id, sessionRef);
    void link
      .request(
        {
          t: 'agent_open',
          id,
          sessionRef,
          agentKey: record.agentKey,
          bridge: record.bridge,
          cwd: record.cwd,
          shell: process.env.SHELL ?? '/bin/sh',
          resumeFromSeq: this.options.log.heldSeq(sessionRef),
          backfill: true,
        },
        120_000,
      )
      .finally(() => {
        this.pendingSessionRef.delete(id);
        this.backfilling.delete(sessionRef);
      });
  }

  private scheduleAck(link: Link, sessionRef: string): void {
    if (link.ackTimers.has(sessionRef)) return;
    link.ackTimers.set(
      sessionRef,
      setImmediate(() => {
        link.ackTimers.delete(sessionRef);
        this.options.log.commit();
        link.send({
          t: 'agent_event_ack',
          sessionRef,
          throughSeq: this.options.log.heldSeq(sessionRef),
        });
      }),
    );
  }
}

export function lostMessage(action: string): string {
  switch (action) {
    case 'agent_exited':
      return 'the agent process ended';
    case 'reopen_failed':
      return 'the agent could not be started again for this session';
    case 'agent_gone':
      return 'the workstation restarted and the agent of this session with it; the running turn was lost';
    case 'unknown_session':
      return 'the workstation does not know this session';
    default:
      return `the session was lost (${action})`;
  }
}
