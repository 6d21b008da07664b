// Where Codex keeps its sessions: `$CODEX_HOME`, else `~/.codex`.
import type { SessionPlatform } from '../../platform.js';

export function codexHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  const fromEnv = platform.env.CODEX_HOME?.trim();
  return [fromEnv ? fromEnv : platform.join(platform.homeDir, '.codex')];
}
