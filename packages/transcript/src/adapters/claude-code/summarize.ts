// The summary numbers without building events. Most bytes of a Claude Code log are tool output
// repeated in `toolUseResult` and subagent progress; the pass parses a user line without its
// toolUseResult and a non-hook progress line not at all, and otherwise reads records the way
// translate does, so that it gives foldTranscript(translate(files))'s numbers.
//
// Every line it does not parse in full is still decoded and checked in full to be exactly what
// JSON.parse would accept, so a damaged line is dropped by both passes or by neither.
import type { SourceFile, SummaryPass } from '../../adapter.js';
import { bytesOf, indexOfBytes } from '../../bytes.js';
import { parseJson } from '../../depth.js';
import { lastMember, type MemberRange, objectMembers, stringText } from '../../json-check.js';
import { skimElements, skimMembers } from '../../json-skim.js';
import { decodeUtf8, type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type { Capability, SessionSummaryWithPrompts, Usage } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { subagentFolderSession } from './files.js';
import { bytesAt } from './members.js';
import { hasOneByteView, recordFromBytes, UNSETTLED } from './one-byte.js';
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
/** Claude Code writes the envelope, type tag included, before a user or progress record's body. */
const HEAD_WINDOW = 1024;

interface RequestState {
  usage: Usage | undefined;
}

/** A parsed record, whole or up to a cut; undefined when the line is no record. */
type LineRecord = { value: unknown } | undefined;

class Summarizer {
  readonly tally = new SummaryTally();
  readonly prompts: string[] = [];
  readonly requests = new Map<string, RequestState>();
  /** Main-lane requests in order, for the context shape. */
  readonly mainRequests: RequestState[] = [];
  private readonly mainRequestOfMessage = new Map<string, string>();
  private readonly fileOfUuid = new Map<string, number>();

  /** Whether the file being read is known to be well-formed UTF-8. */
  private wellFormed = false;
  /** Whether the line being read can be parsed from its bytes. */
  private oneByte = false;

  /** Whether the first file is the main lane's; not when the main file is gone. */
  constructor(private readonly hasMain: boolean) {}

  private fileIndex = 0;
  private path = '';
  private first = true;

  /** One file; an error when its first record is of a format generation this adapter does not know. */
  file(index: number, file: SourceFile): UnknownFormatGeneration | undefined {
    this.startFile(index, file.path, file.wellFormedUtf8 === true);
    for (const span of splitLines(file.data)) {
      const failure = this.line(file.data, span);
      if (failure) return failure;
    }
    return undefined;
  }

  /** Starts file `index`; `wellFormedUtf8` when its bytes are known to be well-formed UTF-8. */
  startFile(index: number, path: string, wellFormedUtf8: boolean): void {
    this.fileIndex = index;
    this.path = path;
    this.first = true;
    this.wellFormed = wellFormedUtf8;
  }

  /** One line of the current file; an error when it is the file's first record and of an unknown generation. */
  line(
    data: Uint8Array,
    span: LineSpan,
    wellFormedUtf8 = this.wellFormed,
  ): UnknownFormatGeneration | undefined {
    this.oneByte = wellFormedUtf8 && hasOneByteView(data);
    const line = this.read(data, span);
    if (line === undefined) return undefined;
    if (this.first) {
      this.first = false;
      const detail = unknownGeneration(line.value);
      if (detail !== undefined) return unknownFormatGeneration(this.path, span.line, detail);
    }
    if (isRec(line.value)) this.record(this.fileIndex, line.value);
    return undefined;
  }

  /** The line's record: its head when the head says all the numbers need, else the whole line. */
  private read(data: Uint8Array, span: LineSpan): LineRecord {
    const line = data.subarray(span.offset, span.offset + span.length);
    if (this.oneByte) {
      const record = recordFromBytes(line);
      if (record !== UNSETTLED) return record === undefined ? undefined : { value: record };
    }
    const fast = this.readFast(line);
    if (fast !== undefined) return fast === SKIP ? undefined : fast;
    const parsed = parseJsonLine(data, span);
    return parsed.ok ? { value: parsed.value } : undefined;
  }

  /**
   * User and progress lines read by their parts: a user record without its toolUseResult, a
   * progress record other than a hook's as only its type and uuid (it makes no event). The whole
   * line is checked as JSON first; undefined sends the line to JSON.parse.
   */
  private readFast(line: Uint8Array): LineRecord | typeof SKIP {
    const tag = indexOfBytes(line, TYPE_TAG);
    if (tag === -1 || tag > HEAD_WINDOW) return undefined;
    const word = tag + TYPE_TAG.length;
    const user = bytesAt(line, word, USER);
    if (!user && !bytesAt(line, word, PROGRESS)) return undefined;
    // Only a prefilter: what counts is the members the check finds, decoded.
    if (indexOfBytes(line, user ? TOOL_USE_RESULT : DATA, word) === -1) return undefined;
    // Not UTF-8 text holding a JSON object (a NUL byte included): translate skips the line too.
    const text = line.indexOf(0) === -1 ? decodeUtf8(line) : undefined;
    const members = text === undefined ? undefined : objectMembers(text);
    if (text === undefined || members === undefined) return SKIP;
    const type = lastMember(members, 'type');
    if (type === undefined || text.charCodeAt(type.valueOffset) !== QUOTE) return undefined;
    const typeName = stringText(text, type.valueOffset, type.valueEnd);
    if (typeName === 'user') return { value: parseJson(userRecordText(text, members)) };
    if (typeName !== 'progress') return undefined;
    // A progress record counts only by its type, uuid, time and kind of data: a hook's makes an
    // event (its time counts), the others make none.
    const record = pickMembers(text, members, PROGRESS_MEMBERS);
    const data = lastMember(members, 'data');
    if (data && text.charCodeAt(data.valueOffset) === OPEN_BRACE) {
      const kind = lastMember(skimMembers(text, data.valueOffset), 'type');
      if (kind === undefined || text.charCodeAt(kind.valueOffset) !== QUOTE) return undefined;
      (record.value as Rec).data = { type: stringText(text, kind.valueOffset, kind.valueEnd) };
    }
    return record;
  }

  private record(fileIndex: number, r: Rec): void {
    const uuid = str(r.uuid);
    if (uuid !== undefined) {
      const seenIn = this.fileOfUuid.get(uuid);
      if (seenIn !== undefined && seenIn !== fileIndex) return;
      this.fileOfUuid.set(uuid, fileIndex);
    }
    const type = str(r.type) ?? '';
    const mainLane = fileIndex === 0 && this.hasMain;
    switch (type) {
      case 'user':
        this.user(r, mainLane);
        this.event(r);
        return;
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
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * The text of a checked user line without what the numbers never read: its toolUseResult, and
 * the output inside each tool_result block of its message (the same output again).
 */
function userRecordText(text: string, members: readonly MemberRange[]): string {
  const kept: string[] = [];
  for (const m of members) {
    if (m.key === 'toolUseResult') continue;
    if (m.key === 'message' && text.charCodeAt(m.valueOffset) === OPEN_BRACE)
      kept.push(`${text.slice(m.keyOffset, m.valueOffset)}${messageText(text, m.valueOffset)}`);
    else kept.push(text.slice(m.keyOffset, m.valueEnd));
  }
  return `{${kept.join(',')}}`;
}

function messageText(text: string, open: number): string {
  const kept = skimMembers(text, open).map((m) =>
    m.key === 'content' && text.charCodeAt(m.valueOffset) === OPEN_BRACKET
      ? `${text.slice(m.keyOffset, m.valueOffset)}[${skimElements(text, m.valueOffset)
          .map((e) => blockText(text, e.offset, e.end))
          .join(',')}]`
      : text.slice(m.keyOffset, m.valueEnd),
  );
  return `{${kept.join(',')}}`;
}

function blockText(text: string, offset: number, end: number): string {
  if (text.charCodeAt(offset) !== OPEN_BRACE) return text.slice(offset, end);
  const members = skimMembers(text, offset);
  const type = lastMember(members, 'type');
  if (type === undefined || text.charCodeAt(type.valueOffset) !== QUOTE) return text.slice(offset, end);
  if (stringText(text, type.valueOffset, type.valueEnd) !== 'tool_result') return text.slice(offset, end);
  const kept = members.filter((m) => m.key !== 'content').map((m) => text.slice(m.keyOffset, m.valueEnd));
  return `{${kept.join(',')}}`;
}

const PROGRESS_MEMBERS: ReadonlySet<string> = new Set(['type', 'uuid', 'timestamp']);

/** The record a checked line holds, parsed with only the members named in `keys`. */
function pickMembers(text: string, members: readonly MemberRange[], keys: ReadonlySet<string>) {
  const kept = members.filter((m) => keys.has(m.key)).map((m) => text.slice(m.keyOffset, m.valueEnd));
  return { value: parseJson(`{${kept.join(',')}}`) };
}

export function summarizeClaudeCode(
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const { s, subagents } = summarizerFor(files.map((f) => f.path));
  for (const [i, file] of files.entries()) {
    const failure = s.file(i, file);
    if (failure) return err(failure);
  }
  return ok(finishSummary(s, subagents));
}

/** The summary pass fed one line at a time, for files read in chunks: summarizeClaudeCode's numbers. */
export function claudeSummaryPass(paths: readonly string[]): SummaryPass {
  const { s, subagents } = summarizerFor(paths);
  return {
    startFile: (index, wellFormedUtf8) => s.startFile(index, paths[index] ?? '', wellFormedUtf8),
    line: (data, span, wellFormedUtf8) => s.line(data, span, wellFormedUtf8),
    finish: () => ok(finishSummary(s, subagents)),
  };
}

/** A session's files are its main file and its subagents' (or only subagents' when the main file is gone). */
function summarizerFor(paths: readonly string[]): { s: Summarizer; subagents: number } {
  const orphan = paths[0] !== undefined && subagentFolderSession(paths[0]) !== undefined;
  return { s: new Summarizer(!orphan), subagents: orphan ? paths.length : paths.length - 1 };
}

function finishSummary(s: Summarizer, subagents: number): SessionSummaryWithPrompts {
  // Requests are counted once their largest usage is known; the main lane's in order, for the shape.
  const main = new Set(s.mainRequests);
  for (const r of s.mainRequests) s.tally.request(r.usage, true);
  for (const r of s.requests.values()) if (!main.has(r)) s.tally.request(r.usage, false);
  // Each number is present exactly when translate would show its capability.
  const capabilities: Capability[] = ['durations'];
  if (s.requests.size > 0) capabilities.push('requests');
  if ([...s.requests.values()].some((r) => r.usage)) capabilities.push('usage');
  if (s.tally.compactions > 0) capabilities.push('compaction');
  if (subagents > 0) capabilities.push('subagents');
  const summary: SessionSummaryWithPrompts = s.tally.summary(capabilities, subagents);
  summary.prompts = s.prompts;
  return summary;
}
