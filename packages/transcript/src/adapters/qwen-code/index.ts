// The Qwen Code adapter: append-only JSONL chat files, one per session.
import type { SessionAdapter } from '../../adapter.js';
import { oneFileSession } from '../shared.js';
import { detectQwen } from './detect.js';
import { qwenHomes } from './homes.js';
import { QwenTranslation } from './incremental.js';
import { listQwenSessions } from './list.js';
import { QWEN_CODE } from './records.js';
import { qwenSummaryPass, summarizeQwenSession } from './summarize.js';
import { qwenLastRecordAt } from './times.js';
import { translateQwenSession } from './translate.js';

export const qwenCodeAdapter: SessionAdapter = {
  id: QWEN_CODE,
  aliases: ['qwen'],
  // No subagent lanes yet; no system prompt, tool schemas or hooks are recorded.
  capabilities: ['requests', 'usage', 'durations', 'reasoning', 'compaction'],
  homes: qwenHomes,
  detect: detectQwen,
  list: listQwenSessions,
  sessionFiles: oneFileSession,
  lastRecordAt: qwenLastRecordAt,
  translate: translateQwenSession,
  incremental: () => new QwenTranslation(),
  summarize: summarizeQwenSession,
  summaryPass: qwenSummaryPass,
};
