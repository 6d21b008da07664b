// Demo sessions for a machine with no agent sessions at all: a few short, realistic sessions written
// in each supported agent's own file format into a temporary home, never into the real agent
// folders, so that a first start shows what cairn does.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeClaudeEscapingSession, writeClaudeSession } from './claude-code.js';
import { writeCodexRollout } from './codex.js';
import { writeCopilotSession } from './copilot-cli.js';
import { writeGeminiSession } from './gemini-cli.js';
import { writeOpenCodeSession } from './opencode.js';
import { writePiSession } from './pi.js';
import { writeQwenSession } from './qwen-code.js';

export interface DemoHome {
  /** Stands for the user's home: `.claude`, `.codex`, `.gemini` and `.qwen` are inside. */
  readonly home: string;
  /** A cairn home of its own, so the demo's index never mixes with a real one. */
  readonly cairnHome: string;
  /** The environment that points every agent at `home`. */
  readonly env: Record<string, string>;
  /** The session files written, by agent. */
  readonly files: Record<
    'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'pi' | 'copilot-cli' | 'opencode' | 'kilo',
    string[]
  >;
  remove(): void;
}

/** Writes the demo sessions under a new temporary folder. `now` places them in time. */
export function makeDemoHome(now = Date.now()): DemoHome {
  const root = mkdtempSync(join(tmpdir(), 'cairn-demo-'));
  const home = join(root, 'home');
  const cairnHome = join(root, 'cairn');
  mkdirSync(home, { recursive: true });
  const files = {
    'claude-code': [
      ...writeClaudeSession(home, now - 3 * 3_600_000),
      ...writeClaudeEscapingSession(home, now - 26 * 3_600_000),
    ],
    codex: [writeCodexRollout(home, now - 5 * 3_600_000)],
    'gemini-cli': [writeGeminiSession(home, now - 30 * 3_600_000)],
    'qwen-code': [writeQwenSession(home, now - 50 * 3_600_000)],
    pi: [writePiSession(home, now - 70 * 3_600_000)],
    'copilot-cli': [writeCopilotSession(home, now - 90 * 3_600_000)],
    opencode: writeOpenCodeSession(home, now - 110 * 3_600_000, 'opencode'),
    kilo: writeOpenCodeSession(home, now - 130 * 3_600_000, 'kilo'),
  };
  return {
    home,
    cairnHome,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CODEX_HOME: join(home, '.codex'),
      GEMINI_CLI_HOME: home,
      // Both: Qwen Code keeps sessions under its runtime folder, which the second variable moves.
      QWEN_HOME: join(home, '.qwen'),
      QWEN_RUNTIME_DIR: join(home, '.qwen'),
      // Both: the second one alone would move pi's sessions out of its agent folder.
      PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
      PI_CODING_AGENT_SESSION_DIR: join(home, '.pi', 'agent', 'sessions'),
      COPILOT_HOME: join(home, '.copilot'),
      // OpenCode and Kilo keep their data under the XDG data folder.
      XDG_DATA_HOME: join(home, '.local', 'share'),
      CAIRN_HOME: cairnHome,
    },
    files,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
