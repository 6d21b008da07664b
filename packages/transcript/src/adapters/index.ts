// The table of built-in adapters, one folder per agent.
import type { SessionAdapter } from '../adapter.js';
import { claudeCodeAdapter } from './claude-code/index.js';
import { codexAdapter } from './codex/index.js';
import { copilotCliAdapter } from './copilot-cli/index.js';
import { geminiCliAdapter } from './gemini-cli/index.js';
import { kiloAdapter } from './kilo/index.js';
import { openCodeAdapter } from './opencode/index.js';
import { piAdapter } from './pi/index.js';
import { qwenCodeAdapter } from './qwen-code/index.js';

export const builtinSessionAdapters: readonly SessionAdapter[] = [
  claudeCodeAdapter,
  codexAdapter,
  geminiCliAdapter,
  piAdapter,
  qwenCodeAdapter,
  copilotCliAdapter,
  openCodeAdapter,
  kiloAdapter,
];
