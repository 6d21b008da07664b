// The GitHub Copilot CLI adapter: an append-only events file per session.
import type { SessionAdapter } from '../../adapter.js';
import { oneFileSession } from '../shared.js';
import { detectCopilot } from './detect.js';
import { copilotHomes } from './homes.js';
import { CopilotTranslation } from './incremental.js';
import { listCopilotSessions } from './list.js';
import { COPILOT_CLI } from './records.js';
import { copilotSummaryPass, summarizeCopilotSession } from './summarize.js';
import { copilotLastRecordAt } from './times.js';
import { COPILOT_CAPABILITIES, translateCopilotSession } from './translate.js';

export const copilotCliAdapter: SessionAdapter = {
  id: COPILOT_CLI,
  aliases: ['copilot'],
  // `requests` where a session's tokens all come from per-request usage records (newer versions);
  // older ones record tokens and request counts only per process and model.
  capabilities: COPILOT_CAPABILITIES,
  homes: copilotHomes,
  detect: detectCopilot,
  list: listCopilotSessions,
  sessionFiles: oneFileSession,
  lastRecordAt: copilotLastRecordAt,
  translate: translateCopilotSession,
  incremental: () => new CopilotTranslation(),
  summarize: summarizeCopilotSession,
  summaryPass: copilotSummaryPass,
};
