// The summary numbers without building events. Most bytes of a Claude Code log are tool output
// repeated in `toolUseResult` and subagent progress; the pass parses a user line only up to its
// toolUseResult and leaves non-hook progress lines unparsed, and otherwise reads records the way
// translate does, so that it gives foldTranscript(translate(files))'s numbers.
//
// A cut line is checked in full when it is the last, unterminated line of a file (a file being
// written); damage inside the unparsed tail of a line in the middle of a file goes unseen.
import type { SourceFile } from '../../adapter.js';
import { parseJson } from '../../depth.js';
import { decodeUtf8, type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type { Capability, SessionSummaryWithPrompts, Usage } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { bytesOf, indexOfBytes } from './bytes.js';
import { bytesAt, lastMemberBefore } from './members.js';
import { userOrigin, userTextOf } from './origin.js';
import {
  BOOKKEEPING_TYPES,
  isRec,
  type Rec,
  rec,
  str,
  TITLE_TYPES,
  timestampOf,
  unknownGeneration,
} from './records.js';
import { isLargerUsage, requestKeyOf, usageOf } from './usage.js';

const TYPE_TAG = bytesOf('"type":"');
const USER = bytesOf('user"');
const PROGRESS = bytesOf('progress"');
const TOOL_USE_RESULT = bytesOf(',"toolUseResult":');
const DATA = bytesOf(',"data":');
const HOOK_DATA = bytesOf('{"type":"hook_progress"');
const TYPE_KEY = bytesOf('"type"');
const PROGRESS_VALUE = bytesOf('"progress"');
/** Claude Code writes the envelope, type tag included, before a user or progress record's body. */
const HEAD_WINDOW = 1024;

interface RequestState {
  usage: Usage | undefined;
}

/** A parsed record, whole or up to a cut; undefined when the line is no record. */
type LineRecord = { value: unknown; cut: boolean } | undefined;

class Summarizer {
  readonly tally = new SummaryTally();
  readonly prompts: string[] = [];
  readonly requests = new Map<string, RequestState>();
  /** Main-lane requests in order, for the context shape. */
  readonly mainRequests: RequestState[] = [];
  private readonly mainRequestOfMessage = new Map<string, string>();
  private readonly fileOfUuid = new Map<string, number>();

  /** One file; an error when its first record is of a format generation this adapter does not know. */
  file(index: number, file: SourceFile): UnknownFormatGeneration | undefined {
    const data = file.data;
    let first = true;
    for (const span of splitLines(data)) {
      const line = this.read(data, span);
      if (line === undefined) continue;
      if (first) {
        first = false;
        const detail = unknownGeneration(line.value);
        if (detail !== undefined) return unknownFormatGeneration(file.path, span.line, detail);
      }
      if (isRec(line.value))
        this.record(index, line.value, line.cut ? () => parseJsonLine(data, span) : undefined);
    }
    return undefined;
  }

  /** The line's record: its head when the head says all the numbers need, else the whole line. */
  private read(data: Uint8Array, span: LineSpan): LineRecord {
    const line = data.subarray(span.offset, span.offset + span.length);
    if (!span.unterminated) {
      const fast = this.readFast(line);
      if (fast !== undefined) return fast === SKIP ? undefined : fast;
    }
    const parsed = parseJsonLine(data, span);
    return parsed.ok ? { value: parsed.value, cut: false } : undefined;
  }

  /**
   * User and progress lines read by their parts: a user record up to its toolUseResult, a
   * progress record other than a hook's not at all (it makes no event). A part proves itself
   * made of top-level members by parsing as such; undefined sends the line to JSON.parse.
   */
  private readFast(line: Uint8Array): LineRecord | typeof SKIP {
    const tag = indexOfBytes(line, TYPE_TAG);
    if (tag === -1 || tag > HEAD_WINDOW) return undefined;
    const word = tag + TYPE_TAG.length;
    if (bytesAt(line, word, USER)) {
      const cutAt = indexOfBytes(line, TOOL_USE_RESULT, word);
      if (cutAt === -1) return undefined;
      const head = membersBefore(line, cutAt);
      return head && head.type === 'user' && 'message' in head && 'timestamp' in head && 'uuid' in head
        ? { value: head, cut: true }
        : undefined;
    }
    if (!bytesAt(line, word, PROGRESS)) return undefined;
    const dataAt = indexOfBytes(line, DATA, word);
    if (dataAt === -1 || bytesAt(line, dataAt + DATA.length, HOOK_DATA)) return undefined;
    // Progress lines are most of a log's lines: their head is checked by its bytes, not parsed. A
    // head that is not valid JSON (which only a parse would see) makes no event either way.
    const type = lastMemberBefore(line, dataAt, TYPE_KEY);
    return type &&
      type.end - type.offset === PROGRESS_VALUE.length &&
      bytesAt(line, type.offset, PROGRESS_VALUE)
      ? SKIP
      : undefined;
  }

  private record(
    fileIndex: number,
    r: Rec,
    whole: (() => ReturnType<typeof parseJsonLine>) | undefined,
  ): void {
    const uuid = str(r.uuid);
    if (uuid !== undefined) {
      const seenIn = this.fileOfUuid.get(uuid);
      if (seenIn !== undefined && seenIn !== fileIndex) return;
      this.fileOfUuid.set(uuid, fileIndex);
    }
    const type = str(r.type) ?? '';
    const mainLane = fileIndex === 0;
    switch (type) {
      case 'user': {
        // A user text next to tool results is rare; its flags may sit past the cut, so it is read whole.
        let record = r;
        if (whole && userTextOf(rec(r.message)?.content)) {
          const full = whole();
          if (!full.ok || !isRec(full.value)) return;
          record = full.value;
        }
        this.user(record, mainLane);
        this.event(record);
        return;
      }
      case 'assistant':
        if (this.assistant(r, mainLane)) this.event(r);
        return;
      case 'system':
        if (r.subtype === 'compact_boundary') this.tally.compactions++;
        this.event(r);
        return;
      case 'progress':
        if (rec(r.data)?.type === 'hook_progress') this.event(r);
        return;
      case 'attachment':
        this.event(r);
        return;
    }
    if (TITLE_TYPES.has(type) || BOOKKEEPING_TYPES.has(type)) return;
    this.event(r);
  }

  private event(r: Rec): void {
    const t = timestampOf(r.timestamp);
    if (t === undefined) return;
    this.tally.time(t);
  }

  private user(r: Rec, mainLane: boolean): void {
    const content = rec(r.message)?.content;
    if (Array.isArray(content))
      for (const block of content)
        if (isRec(block) && block.type === 'tool_result' && block.is_error === true) this.tally.failedTools++;
    if (!mainLane) return;
    const user = userTextOf(content);
    if (!user || userOrigin(user, r, true) !== undefined) return;
    this.tally.turns++;
    this.prompts.push(user.text);
  }

  /** Counts the line's request; whether the line makes any event. */
  private assistant(r: Rec, mainLane: boolean): boolean {
    const message = rec(r.message) ?? {};
    const key = requestKeyOf(r, message);
    let created = false;
    if (key !== undefined) {
      const messageId = str(message.id) ?? '';
      const mainKey = this.mainRequestOfMessage.get(messageId);
      // A side question's replay of the parent's messages: no request and no events.
      if (r.isSidechain === true && mainKey !== undefined && mainKey !== key) return false;
      if (r.isSidechain !== true && mainKey === undefined) this.mainRequestOfMessage.set(messageId, key);
      const usage = usageOf(message.usage);
      const existing = this.requests.get(key);
      if (existing) {
        if (usage && isLargerUsage(usage, existing.usage)) existing.usage = usage;
      } else {
        created = true;
        const state = { usage };
        this.requests.set(key, state);
        if (mainLane) this.mainRequests.push(state);
      }
    }
    const content = message.content;
    if (typeof content === 'string') return true;
    if (!Array.isArray(content)) return created;
    let blocks = 0;
    for (const block of content) {
      if (!isRec(block)) continue;
      blocks++;
      // Server tools (web search, code execution) report failures inside the assistant message.
      const type = str(block.type) ?? '';
      if (
        type.endsWith('_tool_result') &&
        str(block.tool_use_id) !== undefined &&
        str(rec(block.content)?.type)?.endsWith('_error')
      )
        this.tally.failedTools++;
    }
    return created || blocks > 0;
  }
}

const SKIP = Symbol('skip');

/**
 * The members before byte `at` (where a `,"key":` starts) as an object: it parses only when
 * they are whole top-level members, which proves `at` is at the top level.
 */
function membersBefore(line: Uint8Array, at: number): Rec | undefined {
  const text = decodeUtf8(line.subarray(0, at));
  if (text === undefined) return undefined;
  try {
    const value: unknown = parseJson(`${text}}`);
    return isRec(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function summarizeClaudeCode(
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const s = new Summarizer();
  for (const [i, file] of files.entries()) {
    const failure = s.file(i, file);
    if (failure) return err(failure);
  }
  // Requests are counted once their largest usage is known; the main lane's in order, for the shape.
  const main = new Set(s.mainRequests);
  for (const r of s.mainRequests) s.tally.request(r.usage, true);
  for (const r of s.requests.values()) if (!main.has(r)) s.tally.request(r.usage, false);
  // Each number is present exactly when translate would show its capability.
  const capabilities: Capability[] = ['durations'];
  if (s.requests.size > 0) capabilities.push('requests');
  if ([...s.requests.values()].some((r) => r.usage)) capabilities.push('usage');
  if (s.tally.compactions > 0) capabilities.push('compaction');
  if (files.length > 1) capabilities.push('subagents');
  const summary: SessionSummaryWithPrompts = s.tally.summary(capabilities, files.length - 1);
  summary.prompts = s.prompts;
  return ok(summary);
}
