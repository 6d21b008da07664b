// The table of built-in adapters, one folder per agent.
import type { SessionAdapter } from '../adapter.js';
import { claudeCodeAdapter } from './claude-code/index.js';
import { codexAdapter } from './codex/index.js';
import { geminiCliAdapter } from './gemini-cli/index.js';
import { qwenCodeAdapter } from './qwen-code/index.js';

export const builtinSessionAdapters: readonly SessionAdapter[] = [
  claudeCodeAdapter,
  codexAdapter,
  geminiCliAdapter,
  qwenCodeAdapter,
];
