// The Codex adapter: rollouts under `$CODEX_HOME` (default `~/.codex`).
import type { SessionAdapter } from '../../adapter.js';
import { detectRollout } from './detect.js';
import { rolloutFiles } from './files.js';
import { codexHomes } from './homes.js';
import { codexLastRecordAt, discoverRollouts, listRollouts } from './list.js';
import { isUserMessageLine } from './part-cut.js';
import { codexSummaryPass, summarizeRollouts } from './summarize.js';
import { CodexTranslation, translateRollouts } from './translate.js';

export const codexAdapter: SessionAdapter = {
  id: 'codex',
  aliases: [],
  capabilities: ['requests', 'usage', 'durations', 'reasoning', 'compaction', 'subagents'],
  homes: codexHomes,
  detect: detectRollout,
  list: listRollouts,
  discover: discoverRollouts,
  sessionFiles: rolloutFiles,
  lastRecordAt: codexLastRecordAt,
  translate: translateRollouts,
  incremental: () => new CodexTranslation(),
  // A user message is a prompt when a user_message follows it, else injected context.
  keepWithNext: isUserMessageLine,
  summarize: summarizeRollouts,
  summaryPass: codexSummaryPass,
};
