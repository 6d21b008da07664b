// A Copilot CLI session's requests without building events: what the usage reports read of a session
// (each request's time, model and usage, and the folder), by translate's rules. A usage record is a
// request; a shutdown adds, per model, what its process's totals count beyond that process's records;
// a shutdown written again under the same id takes its models' usage from the earlier write. The
// folder is the first start's or resume's; Copilot CLI records no title in the file.
import type { SourceFile } from '../../adapter.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import type { Usage } from '../../model.js';
import type { PassRequests } from '../claude-code/requests.js';
import { toMillis } from '../gemini-cli/records.js';
import { dataOf, isCopilotEvent, isObject, type JsonObject, startContext, stringField } from './records.js';
import { STREAMED_TYPES } from './translate.js';
import { copilotCounts, countsUsage, ProcessUsage } from './usage.js';

interface Request {
  at: number | undefined;
  model: string | undefined;
  usage: Usage | undefined;
}

class RequestPass {
  readonly requests: Request[] = [];
  cwd: string | undefined;
  /** What the running process's usage records counted, for its shutdown. */
  private readonly process = new ProcessUsage();
  /** The request of each (shutdown id, model): a later write of the shutdown drops its usage. */
  private readonly shutdownRows = new Map<string, Request>();

  record(r: JsonObject): void {
    const type = r.type as string;
    if (STREAMED_TYPES.has(type)) return;
    const data = dataOf(r);
    const at = toMillis(r.timestamp);
    if (type === 'session.start' || type === 'session.resume') this.cwd ??= startContext(data).cwd;
    else if (type === 'session.usage_record') this.usageRecord(data, at);
    else if (type === 'session.shutdown') this.shutdown(data, typeof r.id === 'string' ? r.id : '', at);
  }

  private usageRecord(data: JsonObject, at: number | undefined): void {
    const u = isObject(data.usage) ? data.usage : {};
    const model = stringField(u, 'model');
    const counts = copilotCounts(u, 'data.usage');
    let usage: Usage | undefined;
    if (model !== undefined) {
      usage = countsUsage(model, counts);
      this.process.record(model, counts);
    }
    this.requests.push({ at, model, usage });
  }

  private shutdown(data: JsonObject, recordId: string, at: number | undefined): void {
    for (const { model, usage } of this.process.shutdown(data, recordId)) {
      const request: Request = { at, model, usage };
      this.requests.push(request);
      if (recordId === '') continue;
      const key = `${recordId}\u0000${model}`;
      const earlier = this.shutdownRows.get(key);
      if (earlier) earlier.usage = undefined;
      this.shutdownRows.set(key, request);
    }
  }
}

/**
 * The requests of a Copilot CLI session's files, or 'unsure' when a file's first record is no
 * Copilot CLI event: the full translation then says what is wrong.
 */
export function copilotRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  const pass = new RequestPass();
  for (const file of files) {
    let sawRecord = false;
    for (const span of splitLines(file.data, 0)) {
      const parsed = parseJsonLine(file.data, span);
      if (!parsed.ok) continue;
      if (!sawRecord) {
        sawRecord = true;
        if (!isCopilotEvent(parsed.value)) return 'unsure';
      }
      if (isCopilotEvent(parsed.value)) pass.record(parsed.value);
    }
  }
  const out: PassRequests = { requests: [] };
  for (const { at, model, usage } of pass.requests)
    if (at !== undefined && model !== undefined && usage !== undefined)
      out.requests.push({ at, model, usage });
  if (pass.cwd !== undefined) out.cwd = pass.cwd;
  return out;
}
