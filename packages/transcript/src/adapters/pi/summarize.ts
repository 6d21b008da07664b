// The summary numbers of a pi session file read a line at a time, without building events. Every
// entry makes at least one event (a message entry without its message excepted), so each counts
// with its time; a user message with text or images is a prompt, an assistant message a request,
// a tool result marked isError a failed tool, a compaction entry a compaction. An entry written
// again byte for byte counts once, as translate.ts reads it.
import type { SourceFile, SummaryPass } from '../../adapter.js';
import type { LineSpan } from '../../lines.js';
import type { SessionSummaryWithPrompts } from '../../model.js';
import { type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { parseSummaryLine, ShownCapabilities, summarizeWholeFiles, tallySummary } from '../line-summary.js';
import {
  contentText,
  entryTime,
  imageCount,
  isObject,
  isPiHeader,
  type JsonObject,
  stringField,
} from './records.js';
import { lineHash, NOT_A_HEADER } from './translate.js';
import { piUsage } from './usage.js';

class PiSummaryPass implements SummaryPass {
  private readonly tally = new SummaryTally();
  private readonly shown = new ShownCapabilities();
  private readonly prompts: string[] = [];
  /** Per entry id: its first line's length and hash, to know a copy of it. */
  private readonly written = new Map<string, { length: number; hash: number }>();
  private path = '';
  private sawRecord = false;

  constructor(private readonly paths: readonly string[]) {}

  startFile(index: number): void {
    this.path = this.paths[index] ?? '';
    this.sawRecord = false;
  }

  line(data: Uint8Array, span: LineSpan): UnknownFormatGeneration | undefined {
    const parsed = parseSummaryLine(data, span);
    if (!parsed.ok) return undefined;
    const value = parsed.value;
    if (!this.sawRecord) {
      this.sawRecord = true;
      if (!isPiHeader(value)) return unknownFormatGeneration(this.path, span.line, NOT_A_HEADER);
    }
    if (!isObject(value) || typeof value.type !== 'string') return undefined;
    if (this.repeats(value, data, span)) return undefined;
    this.entry(value);
    return undefined;
  }

  private repeats(r: JsonObject, data: Uint8Array, span: LineSpan): boolean {
    const id = stringField(r, 'id');
    if (id === undefined) return false;
    const hash = lineHash(data, span.offset, span.length);
    const first = this.written.get(id);
    if (first === undefined) {
      this.written.set(id, { length: span.length, hash });
      return false;
    }
    return first.length === span.length && first.hash === hash;
  }

  private entry(r: JsonObject): void {
    if (r.type === 'message') {
      const m = isObject(r.message) ? r.message : undefined;
      if (m === undefined) return;
      this.message(m);
    } else if (r.type === 'compaction') {
      this.shown.compaction = true;
      this.tally.compactions++;
    }
    const at = entryTime(r);
    if (at !== undefined) this.shown.durations = true;
    this.tally.time(at);
  }

  private message(m: JsonObject): void {
    const role = stringField(m, 'role') ?? '';
    if (role === 'user') {
      const text = contentText(m.content);
      if (text === '' && imageCount(m.content) === 0) return;
      this.tally.turns++;
      this.prompts.push(text);
    } else if (role === 'assistant') {
      const usage = piUsage(m.usage);
      this.shown.requests = true;
      if (usage) this.shown.usage = true;
      this.tally.request(usage, true);
    } else if (role === 'toolResult' && m.isError === true) this.tally.failedTools++;
  }

  finish(): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
    return tallySummary(this.tally, this.shown, this.prompts);
  }
}

export const piSummaryPass = (paths: readonly string[]): SummaryPass => new PiSummaryPass(paths);

export const summarizePiSession = (
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> =>
  summarizeWholeFiles(piSummaryPass(files.map((f) => f.path)), files);
