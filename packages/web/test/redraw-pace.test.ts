// The pace at which a history arriving in chunks is drawn: the first chunk at once, then fewer and
// fewer redraws as more is drawn, so that drawing a long history costs a few dozen layouts of the row
// list rather than one per chunk; and never sooner after a redraw than its cost allows.
import { describe, expect, it } from 'vitest';
import { RedrawPace } from '../src/session/redraw-pace.js';

/** Feeds `chunks` chunks of `per` items, one every `everyMs`, each redraw costing `costMs`. */
function redrawsFor(chunks: number, per: number, everyMs: number, costMs: (drawn: number) => number) {
  const pace = new RedrawPace();
  let now = 0;
  let drawn = 0;
  let gathered = 0;
  let redraws = 0;
  for (let c = 0; c < chunks; c++) {
    now += everyMs;
    gathered += per;
    if (!pace.due(drawn, gathered, now)) continue;
    const started = now;
    drawn += gathered;
    gathered = 0;
    now += costMs(drawn);
    pace.drew(started, now);
    redraws++;
  }
  return { redraws, drawn, gathered };
}

describe('the pace of drawing a history', () => {
  it('draws the first chunk at once', () => {
    expect(new RedrawPace().due(0, 200, 0)).toBe(true);
    expect(new RedrawPace().due(200, 200, 0)).toBe(true);
    expect(new RedrawPace().due(200, 0, 0)).toBe(false);
  });

  it('draws 500,000 items that come in chunks of 200 in a few dozen redraws', () => {
    // Chunks arriving as fast as they are read, each redraw costing a microsecond per row.
    const { redraws, drawn, gathered } = redrawsFor(2500, 200, 1, (n) => n / 1000);
    expect(drawn + gathered).toBe(500_000);
    expect(redraws).toBeLessThan(60);
    expect(redraws).toBeGreaterThan(10);
  });

  it('still moves the count along, once a second, when chunks come slowly', () => {
    const { redraws } = redrawsFor(100, 200, 200, () => 5);
    // 20 s of chunks: a redraw at least every second or so, not every chunk.
    expect(redraws).toBeGreaterThanOrEqual(20);
    expect(redraws).toBeLessThan(60);
  });

  it('waits four times as long as the last redraw took before the next', () => {
    const pace = new RedrawPace();
    expect(pace.due(0, 200, 0)).toBe(true);
    pace.drew(0, 500);
    // Plenty gathered, but the last redraw took half a second.
    expect(pace.due(200, 10_000, 1500)).toBe(false);
    expect(pace.due(200, 10_000, 2500)).toBe(true);
  });
});
