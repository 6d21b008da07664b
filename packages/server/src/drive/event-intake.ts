// What workstations send about their sessions, taken in: the events of each session stored in order
// in the log, a batch at a time, acked once durable and handed on; a gap asks the workstation for a
// backfill, and after a reconnect each open session it offers is reopened with one from what the
// log holds.
import { randomUUID } from 'node:crypto';
import type { AgentFrameOf } from '@cairn/protocol';
import type { AppendOutcome } from '../storage/server-store.js';
import type { DriveNotice, WireContext } from './agent-wire-server.js';
import type { LoggedEvent } from './event-log.js';
import type { SessionAuthority } from './session-authority.js';
import type { Link } from './wire-link.js';

/** An event waiting to be stored, counted on the connection it came over until it is. */
interface QueuedEvent {
  event: LoggedEvent;
  from: Link;
  bytes: number;
}

/** The events of one session taken in and not yet stored. */
interface SessionIntake {
  /** The connection the newest of them came over: the ack goes to it. */
  link: Link;
  queued: QueuedEvent[];
  /** The store's work on them, while it runs. */
  storing: Promise<void> | undefined;
  /**
   * The seq that comes next once the queue is stored, when this process knows it (from the store's
   * last answer): an event past it is a gap asked to be filled at once, one before it a repeat. The
   * store may hold more (another process on the database); then the backfill brings only repeats.
   */
  next: number | undefined;
}

export class EventIntake {
  /** Which session a backfill (keyed by its `agent_open` id) belongs to. */
  private readonly pendingSessionRef = new Map<string, string>();
  /** Turns to end once their backfill is in, keyed by the reopening request's id. */
  private readonly endAfterBackfill = new Map<string, string>();
  private readonly backfilling = new Set<string>();
  private readonly intakes = new Map<string, SessionIntake>();

  constructor(
    private readonly options: WireContext,
    private readonly authority: SessionAuthority,
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
  async onResumeOffer(link: Link, offered: AgentFrameOf<'agent_resume_offer'>['sessions']): Promise<void> {
    const listed = new Map(offered.map((s) => [s.sessionRef, s]));
    for (const record of await this.options.drive.ofWorkstation(link.name!)) {
      const entry = listed.get(record.sessionRef);
      if (!entry) {
        if (record.turnRunning) {
          await this.options.drive.setTurnRunning(record.sessionRef, false);
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
      await this.settled(record.sessionRef);
      // Another server process may have stored more of it meanwhile: the store says what it holds.
      this.forget(record.sessionRef);
      const frame: AgentFrameOf<'agent_open'> = {
        t: 'agent_open',
        id,
        sessionRef: record.sessionRef,
        agentKey: record.agentKey,
        bridge: record.bridge,
        cwd: record.cwd,
        shell: process.env.SHELL ?? '/bin/sh',
        ...(record.nativeSessionId ? { nativeSessionId: record.nativeSessionId } : {}),
        resumeFromSeq: await this.options.drive.heldSeq(record.sessionRef),
        backfill: true,
      };
      void link.request(frame, 120_000).then(async (reply) => {
        this.pendingSessionRef.delete(id);
        await this.afterBackfill(id);
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
  async afterBackfill(id: string): Promise<void> {
    const sessionRef = this.endAfterBackfill.get(id);
    if (sessionRef === undefined) return;
    this.endAfterBackfill.delete(id);
    await this.settled(sessionRef);
    if (!(await this.options.drive.get(sessionRef))?.turnRunning) return;
    await this.options.drive.setTurnRunning(sessionRef, false);
    this.notify(sessionRef, {
      kind: 'lost',
      sessionRef,
      action: 'agent_gone',
      error: lostMessage('agent_gone'),
    });
  }

  /**
   * Takes one event in. Events that arrive together are stored in one append, acked once it is
   * durable and handed on; the next batch waits for the store's answer to this one. `bytes` is
   * its share of the frame it came in, counted on the link while it waits.
   */
  store(link: Link, sessionRef: string, event: LoggedEvent, bytes = 0): void {
    let intake = this.intakes.get(sessionRef);
    if (!intake) {
      intake = { link, queued: [], storing: undefined, next: undefined };
      this.intakes.set(sessionRef, intake);
    }
    intake.link = link;
    if (intake.next !== undefined) {
      if (event.seq < intake.next) return;
      if (event.seq > intake.next) {
        this.requestBackfill(link, sessionRef, intake.next - 1);
        return;
      }
      intake.next += 1;
    }
    intake.queued.push({ event, from: link, bytes });
    link.unstoredEvents += 1;
    link.unstoredBytes += bytes;
    if (intake.storing) return;
    const current = intake;
    current.storing = this.drain(sessionRef, current).finally(() => {
      current.storing = undefined;
    });
  }

  /** Forgets what this process knew of the session's seqs: the store is asked again (a reconnect). */
  forget(sessionRef: string): void {
    const intake = this.intakes.get(sessionRef);
    if (intake && intake.queued.length === 0 && intake.storing === undefined) this.intakes.delete(sessionRef);
  }

  /** Settles once every event of the session taken in so far is stored or refused. */
  async settled(sessionRef: string): Promise<void> {
    for (;;) {
      const storing = this.intakes.get(sessionRef)?.storing;
      if (storing === undefined) return;
      await storing;
    }
  }

  private async drain(sessionRef: string, intake: SessionIntake): Promise<void> {
    // A turn for the rest of what arrived with the first event, as the acks always waited one.
    await new Promise((resolve) => setImmediate(resolve));
    await this.authority.recorded(sessionRef);
    while (intake.queued.length > 0) {
      const taken = intake.queued.splice(0);
      const batch = taken.map((q) => q.event);
      const link = intake.link;
      try {
        const heldSeq = await this.storeBatch(link, sessionRef, batch);
        // What came meanwhile, counted on from what is now held.
        if (intake.next === undefined || intake.next <= heldSeq)
          intake.next = heldSeq + 1 + contiguousAfter(intake.queued, heldSeq);
      } catch (error) {
        // Nothing is acked: the workstation keeps the events and sends them again, and the store
        // is asked what it holds before the next.
        intake.next = undefined;
        this.options.logLine?.(
          `agent wire: cannot store ${batch.length} events of session ${sessionRef}: ${(error as Error).message}`,
        );
      } finally {
        for (const { from, bytes } of taken) {
          from.unstoredEvents -= 1;
          from.unstoredBytes -= bytes;
        }
      }
    }
  }

  /** Stores a batch, acks it and hands it on; answers the seq held after it. */
  private async storeBatch(link: Link, sessionRef: string, batch: readonly LoggedEvent[]): Promise<number> {
    const stored: LoggedEvent[] = [];
    let gap = false;
    let heldSeq = 0;
    let rest = batch;
    const prompts = this.authority.promptCount(sessionRef);
    while (rest.length > 0) {
      const outcome = await this.options.drive.append(sessionRef, rest);
      heldSeq = outcome.heldSeq;
      stored.push(...storedOf(rest, outcome));
      if (outcome.gapAt === undefined) break;
      // As if each event came alone: the one past the gap is dropped, those after it are tried.
      gap = true;
      rest = rest.slice(rest.findIndex((e) => e.seq === outcome.gapAt) + 1);
    }
    // A turn ended; unless the next one was prompted as soon as subscribers heard the end.
    if (
      stored.some((e) => e.eventName === 'agent_turn_done') &&
      this.authority.promptCount(sessionRef) === prompts
    )
      await this.options.drive.setTurnRunning(sessionRef, false);
    if (gap) this.requestBackfill(link, sessionRef, heldSeq);
    if (stored.length > 0) link.send({ t: 'agent_event_ack', sessionRef, throughSeq: heldSeq });
    // Subscribers hear the stored events from the store itself, in every server process on it.
    return heldSeq;
  }

  private requestBackfill(link: Link, sessionRef: string, heldSeq: number): void {
    if (this.backfilling.has(sessionRef)) return;
    const record = this.authority.placeOf(sessionRef);
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
          resumeFromSeq: heldSeq,
          backfill: true,
        },
        120_000,
      )
      .finally(() => {
        this.pendingSessionRef.delete(id);
        this.backfilling.delete(sessionRef);
      });
  }
}

/** How many of `queued` follow `heldSeq` one after another, from its next seq. */
function contiguousAfter(queued: readonly QueuedEvent[], heldSeq: number): number {
  let next = heldSeq + 1;
  for (const { event } of queued) if (event.seq === next) next += 1;
  return next - heldSeq - 1;
}

/** The events of `sent` an append stored: the `stored` seqs up to its held seq, each once, in order. */
function storedOf(sent: readonly LoggedEvent[], outcome: AppendOutcome): LoggedEvent[] {
  if (outcome.stored === 0) return [];
  const from = outcome.heldSeq - outcome.stored;
  const bySeq = new Map<number, LoggedEvent>();
  for (const event of sent)
    if (event.seq > from && event.seq <= outcome.heldSeq && !bySeq.has(event.seq))
      bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
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
