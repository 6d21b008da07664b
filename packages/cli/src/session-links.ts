// The links between sessions (hand-offs and forks) in the CLI's JSON: read from cairn's own links
// file, which the daemon reads too, and never created by a command that only reads.
import { existsSync } from 'node:fs';
import type { SessionLink } from '@cairn/protocol';
import { cairnHome, type SessionPlatform } from '@cairn/transcript';
import { Failure } from './usage.js';

const homeOf = (platform: SessionPlatform): string => cairnHome(platform.env, platform.homeDir);

/** Every link in the cairn home of `platform`, oldest first; none when no link was ever made. */
export async function readSessionLinks(platform: SessionPlatform): Promise<SessionLink[]> {
  const { linksPath, readLinks } = await import('@cairn/server/links-store');
  const home = homeOf(platform);
  // The store is loaded only when there is a file to read: a listing pays nothing otherwise.
  if (!existsSync(linksPath(home))) return [];
  try {
    return readLinks(home);
  } catch (error) {
    throw new Failure((error as Error).message);
  }
}

/** The links with the session at either end. */
export const linksOf = (links: readonly SessionLink[], agent: string, sid: string): SessionLink[] =>
  links.filter(
    (l) => (l.from.agent === agent && l.from.sid === sid) || (l.to.agent === agent && l.to.sid === sid),
  );

/** Each session as it was, with `links` added to those that have any. */
export async function withLinks<T extends { agent: string; id: string }>(
  platform: SessionPlatform,
  sessions: readonly T[],
): Promise<(T & { links?: SessionLink[] })[]> {
  const links = await readSessionLinks(platform);
  if (links.length === 0) return [...sessions];
  return sessions.map((s) => {
    const own = linksOf(links, s.agent, s.id);
    return own.length === 0 ? s : { ...s, links: own };
  });
}

/**
 * A function that records a link in the cairn home of `platform` at once (no await), for a command
 * that must keep it at a given moment of a turn; the store's code is loaded here, beforehand.
 */
export async function sessionLinkWriter(platform: SessionPlatform): Promise<(link: SessionLink) => void> {
  const { LinksStore, linksPath } = await import('@cairn/server/links-store');
  const path = linksPath(homeOf(platform));
  return (link) => {
    const store = new LinksStore(path);
    try {
      store.add(link);
    } finally {
      store.close();
    }
  };
}
