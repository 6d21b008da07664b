// The pi adapter: one append-only JSONL file per session, its entries a tree.
import type { SessionAdapter } from '../../adapter.js';
import { oneFileSession } from '../shared.js';
import { detectPi } from './detect.js';
import { piHomes } from './homes.js';
import { PiTranslation } from './incremental.js';
import { listPiSessions } from './list.js';
import { PI } from './records.js';
import { piSummaryPass, summarizePiSession } from './summarize.js';
import { piLastRecordAt } from './times.js';
import { translatePiSession } from './translate.js';

export const piAdapter: SessionAdapter = {
  id: PI,
  aliases: ['pi-agent', 'pi-coding-agent'],
  // pi has no subagents (a fork is a session of its own), and records no system prompt, tool
  // schemas or hooks in its sessions.
  capabilities: ['requests', 'usage', 'durations', 'reasoning', 'compaction', 'compactionTokens'],
  homes: piHomes,
  detect: detectPi,
  list: listPiSessions,
  sessionFiles: oneFileSession,
  lastRecordAt: piLastRecordAt,
  translate: translatePiSession,
  incremental: () => new PiTranslation(),
  summarize: summarizePiSession,
  summaryPass: piSummaryPass,
};
