// The summary numbers of a rollout straight from its classified records, without building events.
// It reads the same classification as the translation, so its numbers are foldTranscript's.
import type { SessionSummaryWithPrompts } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { classify } from './classify.js';
import { messageText } from './content.js';
import { str } from './records.js';

export function summarizeRollouts(
  files: Parameters<typeof classify>[0],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const classified = classify(files);
  if (!classified.ok) return classified;
  const { items, session, capabilities } = classified.value;
  const tally = new SummaryTally();
  const prompts: string[] = [];
  const lanes = new Set<string>();
  for (const it of items) {
    if (it.kind === 'skip') continue;
    tally.time(it.rec.ts);
    switch (it.kind) {
      case 'user':
        if (it.origin === undefined) {
          tally.turns++;
          const p = it.rec.payload ?? {};
          prompts.push(it.rec.type === 'event_msg' ? (str(p.message) ?? '') : messageText(p.content).text);
        }
        break;
      case 'tool_result':
        if (it.result.failed) tally.failedTools++;
        break;
      case 'compaction':
        tally.compactions++;
        break;
      case 'request':
        // Translate puts every request of a rollout on its main lane.
        tally.request(it.usage, true);
        break;
      case 'spawn':
        if (it.laneId !== session.id) lanes.add(it.laneId);
        break;
    }
  }
  const summary: SessionSummaryWithPrompts = tally.summary(capabilities, lanes.size);
  summary.prompts = prompts;
  return ok(summary);
}
