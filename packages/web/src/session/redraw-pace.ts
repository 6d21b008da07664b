// When a history arriving in chunks is drawn. Every redraw lays out the whole row list again (rows,
// day dividers, size estimates, the virtual list's offsets), so drawing once per chunk made opening a
// long session quadratic in its length. Drawn when what was gathered since is a good part of what is
// drawn, and never more often than the last redraw's cost allows: a few dozen redraws for any length.
export class RedrawPace {
  private lastAt = Number.NEGATIVE_INFINITY;
  private lastCost = 0;

  constructor(
    /** Gathered items worth a redraw, as a share of those drawn. */
    private readonly share = 0.25,
    /** The longest wait between redraws while items keep coming, so the count moves. */
    private readonly maxWaitMs = 1000,
    /** Time between redraws, as a multiple of the last redraw's cost. */
    private readonly costTimes = 4,
  ) {}

  /** Whether to draw now, with `drawn` items on screen and `gathered` waiting. */
  due(drawn: number, gathered: number, now = performance.now()): boolean {
    if (gathered === 0) return false;
    if (drawn === 0) return true;
    const since = now - this.lastAt;
    if (since < this.costTimes * this.lastCost) return false;
    return gathered >= drawn * this.share || since >= this.maxWaitMs;
  }

  /** Records a redraw that started at `startedAt` and was painted at `now`. */
  drew(startedAt: number, now = performance.now()): void {
    this.lastAt = now;
    this.lastCost = now - startedAt;
  }
}
