// Which workstation may speak for which session: a frame that names a session is taken from the
// workstation the session was opened on and refused from any other (counted by sender and logged,
// nothing kept), so one ticket never reaches another machine's sessions.
import type { AgentFrame } from '@cairn/protocol';
import type { AgentWireServerOptions } from './agent-wire-server.js';
import type { Link } from './wire-link.js';

/**
 * How each frame a workstation sends names a session, and so how it is checked:
 * - `field`: its `sessionRef` must be a session opened on the sending workstation;
 * - `request`: it answers a request (by `id`) this side sent to the sending workstation;
 * - `inventory`: each entry of its `sessions` list must be the sender's; the others are refused;
 * - `server-only`: a frame only this side sends, refused from a workstation.
 * Frames that name no session are not listed.
 */
export const SESSION_FRAME_RULES = {
  agent_event: 'field',
  agent_turn_done: 'field',
  agent_session_lost: 'field',
  agent_backfill_events: 'request',
  agent_backfill_done: 'request',
  agent_resume_offer: 'inventory',
  heartbeat: 'inventory',
  agent_open: 'server-only',
  agent_prompt: 'server-only',
  agent_answer: 'server-only',
  agent_interrupt: 'server-only',
  agent_close: 'server-only',
  agent_event_ack: 'server-only',
  agent_steer: 'server-only',
  agent_set_config_option: 'server-only',
} as const satisfies Partial<Record<AgentFrame['t'], 'field' | 'request' | 'inventory' | 'server-only'>>;

/** Refusals are logged one by one up to this many per connection, then once per this many. */
const REFUSALS_LOGGED = 20;

export const isSeq = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;

export class SessionAuthority {
  /** Which workstation each session was opened on, as the event log says (read once). */
  private readonly ownerCache = new Map<string, string | null>();
  private readonly refusedCounts = new Map<string, number>();

  constructor(private readonly options: AgentWireServerOptions) {}

  /** A session this server opens on a workstation now. */
  opened(sessionRef: string, workstation: string): void {
    this.ownerCache.set(sessionRef, workstation);
  }

  /** Frames refused so far, by the workstation that sent them (`?` before its hello). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.refusedCounts);
  }

  /** The workstation a session was opened on, or null for a session this server never opened. */
  ownerOf(sessionRef: string): string | null {
    let owner = this.ownerCache.get(sessionRef);
    if (owner === undefined) {
      owner = this.options.log.get(sessionRef)?.workstation ?? null;
      this.ownerCache.set(sessionRef, owner);
    }
    return owner;
  }

  owns(link: Link, type: string, sessionRef: string): boolean {
    const owner = this.ownerOf(sessionRef);
    if (owner !== null && owner === link.name) return true;
    this.refuse(
      link,
      type,
      sessionRef,
      owner === null ? 'no such session' : 'the session runs on another workstation',
    );
    return false;
  }

  /** The wire reads seq as any number; the log holds whole ones from 1, one after another. */
  numbered(link: Link, frame: { t: string; sessionRef: string; seq: number }): boolean {
    if (isSeq(frame.seq)) return true;
    this.refuse(
      link,
      frame.t,
      frame.sessionRef,
      `seq must be a whole number from 1, got ${String(frame.seq)}`,
    );
    return false;
  }

  /** The entries of an inventory that name the sender's own sessions; the rest are refused. */
  ownedEntries<T extends { sessionRef: string }>(link: Link, type: string, entries: readonly T[]): T[] {
    return entries.filter((entry) => this.owns(link, type, entry.sessionRef));
  }

  /** A frame refused: counted by sender, logged (a flood only now and then), nothing kept. */
  refuse(
    link: Link,
    type: string,
    sessionRef: string | undefined,
    why: string,
    who = link.name ?? '?',
  ): void {
    link.refused += 1;
    this.refusedCounts.set(who, (this.refusedCounts.get(who) ?? 0) + 1);
    if (link.refused <= REFUSALS_LOGGED || link.refused % 1000 === 0) {
      const about = sessionRef === undefined ? '' : ` for session ${sessionRef}`;
      const count = link.refused > REFUSALS_LOGGED ? ` (${link.refused} refused from it so far)` : '';
      this.options.logLine?.(`agent wire: refused ${type}${about} from workstation ${who}: ${why}${count}`);
    }
  }
}
