// Where Gemini CLI keeps its state: `$GEMINI_CLI_HOME` stands in for the user's home folder.
import type { SessionPlatform } from '../../platform.js';

export function geminiHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  const base = platform.env.GEMINI_CLI_HOME || platform.homeDir;
  return [platform.join(base, '.gemini')];
}
