// `cairn usage blocks --live` through the running daemon: the window open now comes from the rows its
// index keeps, asked again every second over one connection, so the CLI reads no file at all while
// sessions grow. Without a daemon the command reads the files itself (usage-live.ts).
//
// With --since or --until the window is that of the requests on those days, as the command finds it
// from the files: the daemon's own open window counts every day, so the window is the last of the
// days' 5-hour blocks, and its sessions are those of the days' sessions last active since it opened.
import type { UsageReadArgs } from '@cairn/protocol';
import { type UsageLink, usageLink } from './usage-daemon.js';
import { type LiveWindow, runLive, windowOf } from './usage-live.js';

/** The daemon counts the window again only when a session changed: asking it often is cheap. */
const ASK_EVERY_MS = 1_000;

/**
 * Draws the live window from the daemon's answers; the exit status, or undefined when no daemon
 * answers `usage_read` (the caller then reads the files).
 */
export async function liveFromDaemon(
  home: string,
  env: NodeJS.ProcessEnv,
  filters: Pick<UsageReadArgs, 'agent' | 'project' | 'model' | 'since' | 'until' | 'timezone'>,
): Promise<number | undefined> {
  const link = await usageLink(home, env);
  if (!link) return undefined;
  try {
    if (filters.since !== undefined || filters.until !== undefined) return await liveInDays(link, filters);
    const { since: _since, until: _until, timezone: _zone, ...others } = filters;
    // The window open now does not depend on the days asked: a report of today alone keeps the
    // answer small, whatever the history.
    const ask = () => link.ask({ ...others, kind: 'daily', since: today(), timezone: 'UTC' });
    const first = await ask();
    if (!first) return undefined;
    let next: typeof first | undefined = first;
    return await runLive(async (now) => {
      const reply = next ?? (await ask());
      next = undefined;
      if (!reply) throw new Error('the daemon stopped answering; run the command again');
      const active = reply.active;
      if (!active) return undefined;
      const sessions = active.sessions.map((s) => ({ agent: s.agent, sessionId: s.sid, lastAt: s.lastAt }));
      return windowOf(active.row, sessions, now);
    }, ASK_EVERY_MS);
  } finally {
    link.close();
  }
}

const today = (): string => new Date().toISOString().slice(0, 10);

/** The last window of the days' requests, drawn from the daemon's blocks and sessions of those days. */
async function liveInDays(
  link: UsageLink,
  filters: Omit<UsageReadArgs, 'kind'>,
): Promise<number | undefined> {
  const look = async (): Promise<((now: number) => LiveWindow | undefined) | undefined> => {
    const blocks = await link.ask({ ...filters, kind: 'blocks' });
    const sessions = blocks && (await link.ask({ ...filters, kind: 'session' }));
    if (!blocks || !sessions) return undefined;
    const row = blocks.rows.filter((r) => !r.isGap).at(-1);
    if (!row) return () => undefined;
    // The window is the days' last block: every request since it opened is in it.
    const start = Date.parse(row.key);
    const active = sessions.rows
      .filter((r) => r.lastAt >= start)
      .map((r) => ({ agent: r.agents[0] ?? '', sessionId: r.key, lastAt: r.lastAt }));
    return (now) => windowOf(row, active, now);
  };
  let next = await look();
  if (!next) return undefined;
  return runLive(async (now) => {
    const drawn = next ?? (await look());
    next = undefined;
    if (!drawn) throw new Error('the daemon stopped answering; run the command again');
    return drawn(now);
  }, ASK_EVERY_MS);
}
