// Turning a <ref> (path, session id or unique id prefix) into a session target.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  discoverSessions,
  findSession,
  listSessions,
  type SessionHead,
  type SessionPlatform,
  type SessionTarget,
} from '@cairn/transcript';
import { Failure } from './usage.js';

export interface ResolvedRef {
  target: SessionTarget;
  head?: SessionHead;
}

export async function resolveRef(
  platform: SessionPlatform,
  ref: string,
  agent?: string,
): Promise<ResolvedRef> {
  if (looksLikePath(ref)) return { target: agent ? { path: resolve(ref), agent } : { path: resolve(ref) } };
  const matches: SessionHead[] = [];
  for await (const entry of listSessions(platform, agent ? { agent } : {})) {
    if ('ref' in entry) continue;
    if (entry.id === ref)
      return { target: { path: entry.path, agent: entry.agent, sessionId: entry.id }, head: entry };
    if (entry.id.startsWith(ref)) matches.push(entry);
  }
  const [only, ...more] = matches;
  if (!only) throw new Failure(`no session matches '${ref}' (not a file, not a known session id)`);
  if (more.length > 0) {
    const ids = matches
      .slice(0, 5)
      .map((m) => `${m.agent}:${m.id}`)
      .join(', ');
    throw new Failure(
      `'${ref}' matches ${matches.length} sessions (${ids}${matches.length > 5 ? ', …' : ''})`,
    );
  }
  return { target: { path: only.path, agent: only.agent, sessionId: only.id }, head: only };
}

function looksLikePath(ref: string): boolean {
  if (ref.includes('/') || ref.includes('\\') || /\.(jsonl?|zst)$/.test(ref)) return true;
  try {
    statSync(ref);
    return true;
  } catch {
    return false;
  }
}

/**
 * Which agent's session a path names, and its id when the file lies in an agent's home (found by
 * walking the homes' folder names, no file read); for a file elsewhere only the agent its content
 * shows. Undefined when no adapter takes the file.
 */
export async function nameOfPath(
  platform: SessionPlatform,
  target: SessionTarget,
): Promise<{ agent: string; id?: string } | undefined> {
  for await (const entry of discoverSessions(platform, target.agent ? { agent: target.agent } : {}))
    if (!('ref' in entry) && resolve(entry.path) === target.path) return { agent: entry.agent, id: entry.id };
  const found = await findSession(platform, target);
  return found.ok ? { agent: found.value.adapter.id } : undefined;
}
