// Where Claude Code keeps its configuration folders (each with a `projects` folder of sessions).
import type { SessionPlatform } from '../../platform.js';

/** `CLAUDE_CONFIG_DIR` (one folder or several, comma-separated), else `~/.claude` and the XDG config folder. */
export function claudeHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  const configured = platform.env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured.trim() !== '') {
    const dirs = configured
      .split(',')
      .map((d) => d.trim())
      .filter((d) => d !== '');
    return [...new Set(dirs)];
  }
  const xdg = platform.env.XDG_CONFIG_HOME;
  const config = xdg !== undefined && xdg.trim() !== '' ? xdg : platform.join(platform.homeDir, '.config');
  return [platform.join(platform.homeDir, '.claude'), platform.join(config, 'claude')];
}
