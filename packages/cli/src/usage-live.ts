// `cairn usage blocks --live`: the current 5-hour billing window, its tokens and cost so far, the
// rate they are spent at and where that rate ends the window, and the sessions working in it. On a
// terminal it is drawn again every few seconds in place; otherwise it is printed once, plainly.
import { count, dollars } from './format.js';
import { type UsageEntry, type UsageRow, usageRows } from './usage-report.js';

const FIVE_HOURS = 5 * 3_600_000;

export interface LiveWindow {
  row: UsageRow;
  /** Tokens and dollars per hour since the window's first request; cost null when unpriced. */
  tokensPerHour: number;
  dollarsPerHour: number | null;
  /** At this rate, the window's totals when it closes. */
  projectedTokens: number;
  projectedCost: number | null;
  /** Sessions with a request in the window, the latest first. */
  sessions: { agent: string; sessionId: string; lastAt: number }[];
}

/** The window open at `now`: one whose last request is under five hours old and whose end is ahead. */
export function liveWindow(entries: readonly UsageEntry[], now: number): LiveWindow | undefined {
  const row = usageRows('blocks', entries, undefined)
    .filter((r) => !r.isGap)
    .at(-1);
  if (!row) return undefined;
  const sessions = new Map<string, LiveWindow['sessions'][number]>();
  const start = Date.parse(row.key);
  for (const e of entries) {
    if (e.at < start || e.at > row.lastAt) continue;
    const key = `${e.agent}\u0000${e.sessionId}`;
    const s = sessions.get(key);
    if (!s || s.lastAt < e.at) sessions.set(key, { agent: e.agent, sessionId: e.sessionId, lastAt: e.at });
  }
  return windowOf(row, [...sessions.values()], now);
}

/**
 * The window of `row` at `now`, with its rate and projection, or undefined when it is not open:
 * the same whether its row was counted here or by the daemon.
 */
export function windowOf(
  row: UsageRow,
  sessions: LiveWindow['sessions'],
  now: number,
): LiveWindow | undefined {
  if (now >= row.endAt! || now - row.lastAt > FIVE_HOURS) return undefined;
  // An hour at least, so that the first minutes do not project a wild rate.
  const hours = Math.max(now - row.firstAt, 3_600_000) / 3_600_000;
  const left = (row.endAt! - now) / 3_600_000;
  const tokensPerHour = row.totalTokens / hours;
  const dollarsPerHour = row.totalCost === null ? null : row.totalCost / hours;
  return {
    row,
    tokensPerHour,
    dollarsPerHour,
    projectedTokens: row.totalTokens + tokensPerHour * left,
    projectedCost: dollarsPerHour === null ? null : row.totalCost! + dollarsPerHour * left,
    sessions: [...sessions].sort((a, b) => b.lastAt - a.lastAt),
  };
}

const money = (usd: number | null): string => (usd === null ? '-  (a model has no price)' : dollars(usd));
const clock = (at: number): string => new Date(at).toISOString().slice(11, 16);

/** The window as lines of text. */
export function renderLive(w: LiveWindow | undefined, now: number): string {
  if (!w) return 'no billing window is open: no request in the last five hours\n';
  const { row } = w;
  const lines = [
    `window        ${clock(Date.parse(row.key))}–${clock(row.endAt!)} UTC, ${Math.round((row.endAt! - now) / 60_000)} min left`,
    `tokens        ${count(row.totalTokens)}  (input ${count(row.inputTokens)}, output ${count(row.outputTokens)}, cache read ${count(row.cacheReadTokens)}, cache write ${count(row.cacheCreationTokens)})`,
    `cost          ${money(row.totalCost)}`,
    `burn rate     ${count(Math.round(w.tokensPerHour))} tokens/h, ${w.dollarsPerHour === null ? '-' : `${dollars(w.dollarsPerHour)}/h`}`,
    `projected     ${count(Math.round(w.projectedTokens))} tokens, ${money(w.projectedCost)} by ${clock(row.endAt!)} UTC`,
    `models        ${row.modelsUsed.join(', ')}`,
    'sessions',
    ...w.sessions.map((s) => `  ${s.agent.padEnd(12)} ${s.sessionId}  last request ${clock(s.lastAt)} UTC`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Draws the window every `everyMs` on a terminal until interrupted; elsewhere prints it once.
 * `look` gives the window as it is at `now` (from the daemon, or from the files with unchanged
 * sessions taken from the cache).
 */
export async function runLive(
  look: (now: number) => Promise<LiveWindow | undefined>,
  everyMs = 2_000,
): Promise<number> {
  const out = process.stdout;
  if (!out.isTTY) {
    const now = Date.now();
    out.write(renderLive(await look(now), now));
    return 0;
  }
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  process.once('SIGINT', stop);
  try {
    while (!stopped) {
      const now = Date.now();
      const text = renderLive(await look(now), now);
      // Home and clear the screen, then the window: drawn in place, not scrolled.
      out.write(
        `\x1b[H\x1b[2J${text}\n(refreshed ${new Date(now).toISOString().slice(11, 19)} UTC; Ctrl-C to stop)\n`,
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  } finally {
    process.off('SIGINT', stop);
  }
  return 0;
}
