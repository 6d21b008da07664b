// The Claude Code adapter: sessions in `<config>/projects/<munged cwd>/<sessionId>.jsonl`.
import type { SessionAdapter } from '../../adapter.js';
import { detectClaudeCode } from './detect.js';
import { claudeSessionFiles } from './files.js';
import { claudeHomes } from './homes.js';
import { CLAUDE_CODE, claudeLastRecordAt, discoverClaudeSessions, listClaudeSessions } from './list.js';
import { claudeSummaryPass, summarizeClaudeCode } from './summarize.js';
import { ClaudeTranslation, translateClaudeCode } from './translate.js';

export const claudeCodeAdapter: SessionAdapter = {
  id: CLAUDE_CODE,
  aliases: ['claude'],
  capabilities: [
    'requests',
    'usage',
    'durations',
    'reasoning',
    'compaction',
    'compactionTokens',
    'subagents',
    'hooks',
  ],
  homes: claudeHomes,
  detect: detectClaudeCode,
  list: listClaudeSessions,
  discover: discoverClaudeSessions,
  sessionFiles: claudeSessionFiles,
  lastRecordAt: claudeLastRecordAt,
  translate: translateClaudeCode,
  incremental: () => new ClaudeTranslation(),
  summarize: summarizeClaudeCode,
  summaryPass: claudeSummaryPass,
};
