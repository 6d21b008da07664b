// Which workstation may speak for which session: a frame that names a session is taken from the
// workstation the session was opened on and refused from any other (counted by sender and logged,
// nothing kept), so one ticket never reaches another machine's sessions.
import type { AgentFrame } from '@cairn/protocol';
import type { WireContext } from './agent-wire-server.js';
import type { DrivenSessionRecord } from './event-log.js';
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

/** Where a session runs and as what: set when it is opened, never changed but by opening it again. */
export type SessionPlace = Pick<DrivenSessionRecord, 'workstation' | 'agentKey' | 'bridge' | 'cwd'>;

const placeOf = (record: DrivenSessionRecord): SessionPlace => ({
  workstation: record.workstation,
  agentKey: record.agentKey,
  bridge: record.bridge,
  cwd: record.cwd,
});

export const isSeq = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;

export class SessionAuthority {
  /** Where each session was opened, as the event log says (read once); null for a session the log
   * does not know. */
  private readonly places = new Map<string, SessionPlace | null>();
  /** Sessions opened here whose record the store has not confirmed yet. */
  private readonly recording = new Map<string, Promise<void>>();
  private readonly refusedCounts = new Map<string, number>();
  /** Prompts sent to each session by this server, counted. */
  private readonly prompts = new Map<string, number>();

  constructor(private readonly options: WireContext) {}

  /** A prompt goes to the session: its turn runs from now. */
  prompted(sessionRef: string): void {
    this.prompts.set(sessionRef, this.promptCount(sessionRef) + 1);
  }

  /** How many prompts this server has sent the session, to tell whether one went out meanwhile. */
  promptCount(sessionRef: string): number {
    return this.prompts.get(sessionRef) ?? 0;
  }

  /** A session this server opens on a workstation now; `recorded` settles once the store has it. */
  opened(sessionRef: string, place: SessionPlace, recorded: Promise<void>): void {
    this.places.set(sessionRef, place);
    const kept = recorded.catch(() => {});
    this.recording.set(sessionRef, kept);
    void kept.then(() => {
      if (this.recording.get(sessionRef) === kept) this.recording.delete(sessionRef);
    });
  }

  /** Settles once the session's record is in the store, when this server is writing it. */
  async recorded(sessionRef: string): Promise<void> {
    await this.recording.get(sessionRef);
  }

  /** Reads which open sessions a workstation runs, when it says hello, so that what is sent to them
   * at once (a prompt, an answer) finds it, also for a session another server process opened. */
  async learn(workstation: string): Promise<void> {
    for (const record of await this.options.drive.ofWorkstation(workstation))
      this.places.set(record.sessionRef, placeOf(record));
  }

  /** Frames refused so far, by the workstation that sent them (`?` before its hello). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.refusedCounts);
  }

  /** Those of `sessionRefs` whose workstation this server has not read yet. */
  unknown(sessionRefs: readonly string[]): string[] {
    return sessionRefs.filter((ref) => !this.places.has(ref));
  }

  /** Reads the workstation of each session from the store. */
  async lookUp(sessionRefs: readonly string[]): Promise<void> {
    for (const ref of new Set(sessionRefs)) {
      const record = await this.options.drive.get(ref);
      // One this server opened meanwhile is known better than the store knew it a moment ago.
      if (!this.places.has(ref)) this.places.set(ref, record ? placeOf(record) : null);
    }
  }

  /** The workstation a session was opened on, or null for a session this server never opened. */
  ownerOf(sessionRef: string): string | null {
    return this.places.get(sessionRef)?.workstation ?? null;
  }

  /** Where a session known to this server runs (see `lookUp`). */
  placeOf(sessionRef: string): SessionPlace | undefined {
    return this.places.get(sessionRef) ?? undefined;
  }

  /** Checked once the session is known (`lookUp`); one never read counts as no such session. */
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
