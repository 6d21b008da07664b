// The summary numbers of a Copilot CLI events file read a line at a time, without building events.
// Each event counts as translate.ts makes it, with the few things it settles only later kept aside:
// - which lane is the main one is known once session.start has named the session, so prompts and
//   requests keep the lane they were on until the end;
// - a tool.execution_start makes no event when any assistant message of the session asks for its
//   call, even one written after it, so its time waits for the end;
// - a session.shutdown written again under the same id takes back the usage of its first write, so
//   the requests are kept (a lane and a usage each) and counted at the end.
import type { SourceFile, SummaryPass } from '../../adapter.js';
import type { LineSpan } from '../../lines.js';
import type { SessionSummaryWithPrompts, Usage } from '../../model.js';
import { type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { isWireId } from '../../values.js';
import { toMillis } from '../gemini-cli/records.js';
import { parseSummaryLine, ShownCapabilities, summarizeWholeFiles, tallySummary } from '../line-summary.js';
import { NOT_AN_EVENT_FILE } from './head.js';
import {
  dataOf,
  isCopilotEvent,
  isObject,
  type JsonObject,
  parentCallOf,
  stringField,
  userContent,
} from './records.js';
import { firstCount, indexOfAscii, STREAMED_TYPES, sessionIdOfPath } from './translate.js';
import { copilotCounts, countsUsage, ProcessUsage } from './usage.js';

/** A request as the translation makes it: its lane and what is left of its usage. */
interface RequestEntry {
  lane: string;
  usage: Usage | undefined;
}

class CopilotSummaryPass implements SummaryPass {
  private readonly tally = new SummaryTally();
  private readonly shown = new ShownCapabilities();
  private readonly main: string;
  private path = '';
  private sawRecord = false;
  private recordedId: string | undefined;
  /** Subagent lane ids by the call that started them. */
  private readonly lanes = new Map<string, string>();
  private readonly prompts: { lane: string; text: string }[] = [];
  private readonly requests: RequestEntry[] = [];
  /** Calls some assistant message asks for, and the times of starts whose call none asks for yet. */
  private readonly requested = new Set<string>();
  private readonly unrequestedStarts = new Map<string, number[]>();
  private readonly reasoned = new Map<string, Set<string>>();
  private readonly process = new ProcessUsage();
  private readonly shutdownRows = new Map<string, RequestEntry>();
  private perRequest = false;
  private totalsOnly = false;

  constructor(private readonly paths: readonly string[]) {
    const stem = paths[0] ? sessionIdOfPath(paths[0]) : '';
    this.main = isWireId(stem) ? stem : '';
  }

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
      if (!isCopilotEvent(value)) return unknownFormatGeneration(this.path, span.line, NOT_AN_EVENT_FILE);
    }
    if (!isCopilotEvent(value)) return undefined;
    // The translation finds the calls messages ask for on lines whose bytes name toolRequests.
    if (
      value.type === 'assistant.message' &&
      indexOfAscii(data.subarray(span.offset, span.offset + span.length), 'toolRequests') !== -1
    )
      this.noteRequested(dataOf(value));
    this.record(value);
    return undefined;
  }

  private noteRequested(data: JsonObject): void {
    if (!Array.isArray(data.toolRequests)) return;
    for (const r of data.toolRequests) {
      const id = isObject(r) ? stringField(r, 'toolCallId') : undefined;
      if (!id) continue;
      this.requested.add(id);
      this.unrequestedStarts.delete(id);
    }
  }

  private laneOf(callId: string | undefined): string {
    if (callId === undefined) return this.main;
    let lane = this.lanes.get(callId);
    if (lane === undefined) {
      lane = isWireId(callId) && callId !== this.main ? callId : `subagent-${this.lanes.size + 1}`;
      this.lanes.set(callId, lane);
    }
    return lane;
  }

  private record(r: JsonObject): void {
    const type = r.type as string;
    const data = dataOf(r);
    const lane = this.laneOf(parentCallOf(data));
    if (STREAMED_TYPES.has(type)) return;
    const at = toMillis(r.timestamp);
    if (type === 'tool.execution_start') {
      const callId = stringField(data, 'toolCallId') ?? '';
      if (callId !== '' && this.requested.has(callId)) return;
      if (callId !== '') {
        // Whether it makes an event is known at the end.
        if (at === undefined) return;
        const times = this.unrequestedStarts.get(callId);
        if (times) times.push(at);
        else this.unrequestedStarts.set(callId, [at]);
        return;
      }
    } else if (!this.counts(type, data, lane, typeof r.id === 'string' ? r.id : '')) return;
    this.time(at);
  }

  private time(at: number | undefined): void {
    if (at === undefined) return;
    this.shown.durations = true;
    this.tally.time(at);
  }

  /** What an event other than a tool start adds; whether it makes any event. */
  private counts(type: string, data: JsonObject, lane: string, recordId: string): boolean {
    switch (type) {
      case 'session.start':
        this.recordedId ??= stringField(data, 'sessionId');
        return true;
      case 'session.truncation':
        if (
          firstCount(data.tokensRemovedDuringTruncation, data.droppedTokens) ||
          firstCount(data.messagesRemovedDuringTruncation)
        )
          this.tally.compactions++;
        return true;
      case 'session.compaction_complete':
        this.tally.compactions++;
        return true;
      case 'session.shutdown':
        this.shutdown(data, lane, recordId);
        return true;
      case 'session.usage_record':
        this.usageRecord(data, lane);
        return true;
      case 'user.message':
        this.prompts.push({ lane, text: userContent(data) });
        return true;
      case 'assistant.reasoning': {
        const text = stringField(data, 'content') ?? '';
        if (text === '') return false;
        this.reasonedOn(lane).add(text);
        return true;
      }
      case 'assistant.message':
        return this.message(data, lane);
      case 'tool.execution_complete':
        if (data.success === false) this.tally.failedTools++;
        return true;
      default:
        return true;
    }
  }

  private reasonedOn(lane: string): Set<string> {
    let set = this.reasoned.get(lane);
    if (!set) {
      set = new Set();
      this.reasoned.set(lane, set);
    }
    return set;
  }

  private message(data: JsonObject, lane: string): boolean {
    const reasoning = stringField(data, 'reasoningText') ?? '';
    const seen = this.reasonedOn(lane);
    let made =
      (reasoning !== '' && !seen.has(reasoning)) ||
      (reasoning === '' &&
        seen.size === 0 &&
        typeof data.reasoningOpaque === 'string' &&
        data.reasoningOpaque !== '');
    seen.clear();
    if ((stringField(data, 'content') ?? '') !== '') made = true;
    if (Array.isArray(data.toolRequests)) for (const req of data.toolRequests) if (isObject(req)) made = true;
    return made;
  }

  private usageRecord(data: JsonObject, lane: string): void {
    const u = isObject(data.usage) ? data.usage : {};
    const model = stringField(u, 'model');
    let usage: Usage | undefined;
    if (model !== undefined) {
      const counts = copilotCounts(u, 'data.usage');
      usage = countsUsage(model, counts);
      this.process.record(model, counts);
    }
    this.requests.push({ lane, usage });
    if (usage) {
      this.shown.usage = true;
      this.perRequest = true;
    }
  }

  private shutdown(data: JsonObject, lane: string, recordId: string): void {
    for (const { model, usage } of this.process.shutdown(data, recordId)) {
      const entry: RequestEntry = { lane, usage };
      this.requests.push(entry);
      if (usage) {
        this.shown.usage = true;
        this.totalsOnly = true;
      }
      if (recordId === '') continue;
      // The last write of a (shutdown id, model) is the one that counts.
      const key = `${recordId}\u0000${model}`;
      const earlier = this.shutdownRows.get(key);
      if (earlier) earlier.usage = undefined;
      this.shutdownRows.set(key, entry);
    }
  }

  finish(): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
    const id =
      this.main || (this.recordedId !== undefined && isWireId(this.recordedId) ? this.recordedId : '');
    // The translation moves the main lane's events to the session's id once it knows it.
    const onMain = (lane: string) => lane === this.main || lane === id;
    for (const times of this.unrequestedStarts.values()) for (const at of times) this.time(at);
    for (const r of this.requests) this.tally.request(r.usage, onMain(r.lane));
    const prompts: string[] = [];
    for (const p of this.prompts) if (onMain(p.lane)) prompts.push(p.text);
    this.tally.turns = prompts.length;
    this.shown.requests = this.perRequest && !this.totalsOnly;
    return tallySummary(this.tally, this.shown, prompts, this.lanes.size, ['compaction', 'subagents']);
  }
}

export const copilotSummaryPass = (paths: readonly string[]): SummaryPass => new CopilotSummaryPass(paths);

export const summarizeCopilotSession = (
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> =>
  summarizeWholeFiles(copilotSummaryPass(files.map((f) => f.path)), files);
