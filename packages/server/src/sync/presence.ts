// Whether a syncing workstation is connected now, told alike by every server process on one
// database: the process that holds its connection says so when it comes, again every heartbeat
// while it lasts, and once more when it ends. A process that dies says nothing more, so its word
// stops counting once older than `freshMs`.

export interface PresenceTiming {
  /** How often a process says again that it still holds a workstation's connection. */
  readonly heartbeatMs: number;
  /** How old that word may be for the workstation still to count as online. */
  readonly freshMs: number;
}

/** A workstation gone without a word shows as offline within about half a minute. */
export const PRESENCE_TIMING: PresenceTiming = { heartbeatMs: 10_000, freshMs: 35_000 };
