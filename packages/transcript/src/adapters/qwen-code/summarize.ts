// The summary numbers of a Qwen Code chat file read a line at a time, without building events.
// Each record counts as translate.ts makes it: its timestamp counts when it makes an event, a
// prompt is a turn, a result with an error is a failed tool, usageMetadata is a request, a
// chat_compression is a compaction. Lines are read and rejected exactly as translate reads them,
// records glued on one line included.
import type { SourceFile, SummaryPass } from '../../adapter.js';
import type { LineSpan } from '../../lines.js';
import type { SessionSummaryWithPrompts } from '../../model.js';
import { type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { toMillis } from '../gemini-cli/records.js';
import { parseSummaryLine, ShownCapabilities, summarizeWholeFiles, tallySummary } from '../line-summary.js';
import {
  gluedRecords,
  isObject,
  isPromptRecord,
  isQwenRecord,
  type JsonObject,
  parts,
  RECORD_TYPES,
  stringField,
  userText,
} from './records.js';
import { qwenUsage } from './usage.js';

class QwenSummaryPass implements SummaryPass {
  private readonly tally = new SummaryTally();
  private readonly shown = new ShownCapabilities();
  private readonly prompts: string[] = [];
  private path = '';
  private sawRecord = false;

  constructor(private readonly paths: readonly string[]) {}

  startFile(index: number): void {
    this.path = this.paths[index] ?? '';
    this.sawRecord = false;
  }

  line(data: Uint8Array, span: LineSpan): UnknownFormatGeneration | undefined {
    const parsed = parseSummaryLine(data, span);
    const glued = !parsed.ok && parsed.reason === 'invalid JSON' ? gluedRecords(data, span) : undefined;
    if (!parsed.ok && glued === undefined) return undefined;
    const values = glued ? glued.map((g) => g.value) : [parsed.ok ? parsed.value : null];
    for (const value of values) {
      if (!this.sawRecord) {
        this.sawRecord = true;
        if (!isQwenRecord(value)) {
          const detail = 'the first record is not a Qwen Code chat record (uuid, parentUuid, type)';
          return unknownFormatGeneration(this.path, span.line, detail);
        }
      }
      if (isQwenRecord(value)) this.record(value);
    }
    return undefined;
  }

  /** One record: what its events would add to the numbers. */
  private record(r: JsonObject): void {
    const type = r.type as string;
    // A record of a type Qwen Code does not write is an unknown event, with its time.
    let makesEvents = true;
    if (type === 'user') makesEvents = this.user(r);
    else if (type === 'assistant') makesEvents = this.assistant(r);
    else if (type === 'tool_result') makesEvents = this.toolResult(r);
    else if (RECORD_TYPES.has(type)) makesEvents = this.system(r);
    if (!makesEvents) return;
    const at = toMillis(r.timestamp);
    if (at !== undefined) this.shown.durations = true;
    this.tally.time(at);
  }

  private user(r: JsonObject): boolean {
    const text = userText(r);
    if (!isPromptRecord(r)) return text !== '';
    if (text === '' && parts(r).length === 0) return false;
    this.tally.turns++;
    this.prompts.push(text);
    return true;
  }

  private assistant(r: JsonObject): boolean {
    const meta = r.usageMetadata;
    let made = false;
    for (const part of parts(r)) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string') made ||= part.text !== '';
      else if (isObject(part.functionCall)) made = true;
    }
    if (!isObject(meta)) return made;
    const usage = qwenUsage(meta, []);
    this.shown.requests = true;
    if (usage) this.shown.usage = true;
    this.tally.request(usage, true);
    return true;
  }

  private toolResult(r: JsonObject): boolean {
    const info = isObject(r.toolCallResult) ? r.toolCallResult : {};
    const statusFailed = stringField(info, 'status') === 'error';
    let made = 0;
    for (const part of parts(r)) {
      if (!isObject(part) || !isObject(part.functionResponse)) continue;
      const response = part.functionResponse.response;
      const error = isObject(response) ? response.error : undefined;
      if (statusFailed || (error !== undefined && error !== null)) this.tally.failedTools++;
      made++;
    }
    if (made > 0) return true;
    if (!stringField(info, 'callId')) return false;
    if (statusFailed) this.tally.failedTools++;
    return true;
  }

  private system(r: JsonObject): boolean {
    const subtype = stringField(r, 'subtype');
    if (subtype === 'ui_telemetry') return false;
    if (subtype === 'chat_compression') {
      this.shown.compaction = true;
      this.tally.compactions++;
    }
    return true;
  }

  finish(): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
    return tallySummary(this.tally, this.shown, this.prompts);
  }
}

export const qwenSummaryPass = (paths: readonly string[]): SummaryPass => new QwenSummaryPass(paths);

export const summarizeQwenSession = (
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> =>
  summarizeWholeFiles(qwenSummaryPass(files.map((f) => f.path)), files);
