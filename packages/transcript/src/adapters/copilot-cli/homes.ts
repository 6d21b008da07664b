// Where Copilot CLI keeps its state: `$COPILOT_HOME`, else `~/.copilot`. Sessions are under its
// `session-state/` folder.
import type { SessionPlatform } from '../../platform.js';

export function copilotHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  return [platform.env.COPILOT_HOME || platform.join(platform.homeDir, '.copilot')];
}
