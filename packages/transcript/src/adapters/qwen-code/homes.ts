// Where Qwen Code keeps its sessions: `<runtime dir>/projects/<project>/chats/`. The runtime dir is
// `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME` (which replaces `~/.qwen` itself), else `~/.qwen`; both
// are searched when they differ, since sessions written before a variable was set stay where they were.
import type { SessionPlatform } from '../../platform.js';

export function qwenHomes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] {
  const home = platform.env.QWEN_HOME || platform.join(platform.homeDir, '.qwen');
  const runtime = platform.env.QWEN_RUNTIME_DIR;
  return runtime && runtime !== home ? [runtime, home] : [home];
}
