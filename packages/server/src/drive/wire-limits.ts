// How much work the agent wire takes from workstations: how many connect at once, how many events
// each may send a second, and how much of what one sent may wait to be stored. Past a limit the
// workstation is refused with a reason naming it, and what it sent beyond is neither stored nor
// acked: its journal keeps it, and it sends it again once it has backed off.

/** WebSocket close code "try again later": the workstation waits longer before it reconnects. */
export const TRY_AGAIN_LATER = 1013;

export interface WireLimits {
  /** Workstations connected over `/agent` at once; the next is refused at the upgrade. */
  readonly maxWorkstations: number;
  /** Events a workstation may send a second, on average. */
  readonly eventsPerSecond: number;
  /** Events it may send at once above that rate (a backfill after a reconnect comes in one go). */
  readonly eventBurst: number;
  /** Events and frames of one connection taken in and not yet stored; past it the connection is
   * refused rather than let the queue grow with a workstation faster than the store. */
  readonly maxUnstoredEvents: number;
  /** The same in bytes, as they came over the wire. */
  readonly maxUnstoredBytes: number;
}

/**
 * Far above what one person's machines send (an agent streams tens of updates a second; a
 * backfill after a day offline a few thousand) and above the drive benchmark's own floods, so that
 * only a runaway or hostile workstation meets them. The bound on what waits to be stored is what
 * keeps memory in check: a few full frames' worth.
 */
export const DEFAULT_WIRE_LIMITS: WireLimits = {
  maxWorkstations: 256,
  eventsPerSecond: 50_000,
  eventBurst: 250_000,
  maxUnstoredEvents: 50_000,
  maxUnstoredBytes: 64 * 1024 * 1024,
};

/** Limits filled in from the defaults, each checked to be a whole number from 1. */
export function wireLimits(given: Partial<WireLimits> = {}): WireLimits {
  const limits = { ...DEFAULT_WIRE_LIMITS, ...given };
  for (const [key, value] of Object.entries(limits))
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`the agent wire's ${key} must be a whole number from 1, got ${value}`);
  return limits;
}

/**
 * A token bucket: full at `burst`, refilled at `perSecond`; an event takes a token. Refilled from
 * the clock when asked, so an idle workstation costs no timer.
 */
export class EventRate {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.at = now();
  }

  /**
   * Takes `count` tokens when there are that many; false, taking none, when there are not. A frame
   * of more events than the burst (a backfill's batch) is taken once the bucket is full and leaves
   * it in debt, so it can go through at all and the rate still holds on average.
   */
  take(count: number): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (Math.min(count, this.burst) > this.tokens) return false;
    this.tokens -= count;
    return true;
  }

  /** Full again: nothing of its past is worth keeping. */
  get full(): boolean {
    return this.tokens + ((this.now() - this.at) / 1000) * this.perSecond >= this.burst;
  }
}
