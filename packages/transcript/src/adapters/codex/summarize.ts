// The summary numbers of a rollout straight from its classified records, without building events.
// It reads the same classification as the translation, so its numbers are foldTranscript's.
import type { Capability, SessionSummaryWithPrompts } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { downsampleMax } from '../../shape.js';
import { classify } from './classify.js';
import { messageText } from './content.js';
import { str } from './records.js';

export function summarizeRollouts(
  files: Parameters<typeof classify>[0],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const classified = classify(files);
  if (!classified.ok) return classified;
  const { items, session, capabilities } = classified.value;
  const has = (c: Capability) => capabilities.includes(c);
  let turns = 0;
  let failedTools = 0;
  let requests = 0;
  let compactions = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let first: number | undefined;
  let last: number | undefined;
  const shape: number[] = [];
  const prompts: string[] = [];
  const lanes = new Set<string>();
  for (const it of items) {
    if (it.kind === 'skip') continue;
    const ts = it.rec.ts;
    if (ts !== undefined) {
      if (first === undefined || ts < first) first = ts;
      if (last === undefined || ts > last) last = ts;
    }
    switch (it.kind) {
      case 'user':
        if (it.origin === undefined) {
          turns++;
          const p = it.rec.payload ?? {};
          prompts.push(it.rec.type === 'event_msg' ? (str(p.message) ?? '') : messageText(p.content).text);
        }
        break;
      case 'tool_result':
        if (it.result.failed) failedTools++;
        break;
      case 'compaction':
        compactions++;
        break;
      case 'request': {
        requests++;
        const u = it.usage;
        inputTokens += u.inputTokens;
        outputTokens += u.outputTokens;
        cacheReadTokens += u.cacheReadTokens ?? 0;
        cacheWriteTokens += u.cacheWriteTokens ?? 0;
        shape.push(u.inputTokens);
        break;
      }
      case 'spawn':
        if (it.laneId !== session.id) lanes.add(it.laneId);
        break;
    }
  }
  const summary: SessionSummaryWithPrompts = { failedTools, turns };
  if (has('requests')) summary.requests = requests;
  if (has('usage')) {
    Object.assign(summary, { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens });
    summary.contextShape = downsampleMax(shape);
  }
  if (has('compaction')) summary.compactions = compactions;
  if (has('subagents')) summary.subagents = lanes.size;
  if (has('durations') && first !== undefined && last !== undefined) summary.durationMs = last - first;
  summary.prompts = prompts;
  return ok(summary);
}
