// A session's requests as the usage reports count them, taken from the transcript an index read
// made anyway: the index keeps them, so that a report never reads the session again.
import type { Transcript } from '@cairn/transcript';
import type { UsageRequest } from '../indexing/index-db.js';

/**
 * Every request with a time, a model and tokens, in the transcript's order: what the library's
 * `requests` task hands the CLI. Requests without input or output tokens count in no report and
 * are left out.
 */
export function sessionRequests(t: Transcript): UsageRequest[] {
  const out: UsageRequest[] = [];
  for (const e of t.events) {
    if (e.kind !== 'request' || e.timestamp === undefined) continue;
    const { model, usage } = e.payload;
    if (model === undefined || usage === undefined) continue;
    if (usage.inputTokens + usage.outputTokens === 0) continue;
    out.push({ at: e.timestamp, model, usage });
  }
  return out;
}
