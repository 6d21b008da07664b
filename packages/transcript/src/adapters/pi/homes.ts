// Where pi keeps its sessions. pi writes them under `<agent dir>/sessions/--<cwd>--/`, the agent
// dir being `$PI_CODING_AGENT_DIR` (a leading `~` expanded), else `~/.pi/agent`;
// `$PI_CODING_AGENT_SESSION_DIR` puts them straight into a folder of its own instead. Both are
// searched when they differ, since sessions written before a variable was set stay where they were.
// pi's `sessionDir` setting and `--session-dir` flag are not seen here: a home is known from the
// environment alone.
import type { SessionPlatform } from '../../platform.js';

export function piHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  const { env, homeDir, join } = platform;
  const expand = (p: string): string =>
    p === '~' ? homeDir : p.startsWith('~/') ? join(homeDir, p.slice(2)) : p;
  const agentDir = env.PI_CODING_AGENT_DIR ? expand(env.PI_CODING_AGENT_DIR) : join(homeDir, '.pi', 'agent');
  const sessions = join(agentDir, 'sessions');
  const own = env.PI_CODING_AGENT_SESSION_DIR ? expand(env.PI_CODING_AGENT_SESSION_DIR) : undefined;
  return own && own !== sessions ? [own, sessions] : [sessions];
}
