// `cairn usage blocks --live` through the running daemon: the window open now comes from the rows its
// index keeps, asked again every second over one connection, so the CLI reads no file at all while
// sessions grow. Without a daemon the command reads the files itself (usage-live.ts).
import type { UsageReadArgs } from '@cairn/protocol';
import { usageLink } from './usage-daemon.js';
import { runLive, windowOf } from './usage-live.js';

/** The daemon counts the window again only when a session changed: asking it often is cheap. */
const ASK_EVERY_MS = 1_000;

/**
 * Draws the live window from the daemon's answers; the exit status, or undefined when no daemon
 * answers `usage_read` (the caller then reads the files).
 */
export async function liveFromDaemon(
  home: string,
  env: NodeJS.ProcessEnv,
  filters: Pick<UsageReadArgs, 'agent' | 'project' | 'model'>,
): Promise<number | undefined> {
  const link = await usageLink(home, env);
  if (!link) return undefined;
  // The window open now does not depend on the days asked: a report of today alone keeps the
  // answer small, whatever the history.
  const ask = () => link.ask({ ...filters, kind: 'daily', since: today(), timezone: 'UTC' });
  try {
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
