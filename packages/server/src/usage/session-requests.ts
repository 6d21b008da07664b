// A session's requests as the usage reports count them, taken from the transcript an index read
// made anyway: the index keeps them, so that a report never reads the session again.
import type { Transcript, TranscriptEvent } from '@cairn/transcript';
import type { UsageRequest } from '../indexing/index-db.js';

/**
 * Every request with a time, a model and tokens, in the transcript's order: what the library's
 * `requests` task hands the CLI. Requests without input or output tokens count in no report and
 * are left out.
 */
export function sessionRequests(t: Transcript): UsageRequest[] {
  const out: UsageRequest[] = [];
  for (const e of t.events) {
    const r = usageRequest(e);
    if (r) out.push(r);
  }
  return out;
}

/** The event as a request the reports count, or undefined. */
export function usageRequest(e: TranscriptEvent): UsageRequest | undefined {
  if (e.kind !== 'request' || e.timestamp === undefined) return undefined;
  const { model, usage } = e.payload;
  if (model === undefined || usage === undefined) return undefined;
  if (usage.inputTokens + usage.outputTokens === 0) return undefined;
  return { at: e.timestamp, model, usage };
}
