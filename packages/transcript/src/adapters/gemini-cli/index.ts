// The Gemini CLI adapter: legacy single-JSON sessions and append-only JSONL sessions.
import type { SessionAdapter } from '../../adapter.js';
import { detectGemini } from './detect.js';
import { geminiSessionFiles } from './files.js';
import { geminiHomes } from './homes.js';
import { GeminiTranslation } from './incremental.js';
import { GEMINI_CLI, listGeminiSessions } from './list.js';
import { geminiLastRecordAt } from './times.js';
import { translateSession } from './translate.js';

export const geminiCliAdapter: SessionAdapter = {
  id: GEMINI_CLI,
  aliases: ['gemini'],
  capabilities: ['requests', 'usage', 'durations', 'reasoning', 'compaction', 'subagents'],
  homes: geminiHomes,
  detect: detectGemini,
  list: listGeminiSessions,
  sessionFiles: geminiSessionFiles,
  lastRecordAt: geminiLastRecordAt,
  translate: translateSession,
  incremental: () => new GeminiTranslation(),
  rewrittenInPlace: (path) => !path.endsWith('.jsonl'),
  readsInParts: false,
};
