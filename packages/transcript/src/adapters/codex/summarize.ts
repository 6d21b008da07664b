// The summary numbers of a rollout read one line at a time, without keeping its records. It
// decides what each record counts for by the rules of classify.ts, which looks ahead over the
// whole file; here each look-ahead is a small pending state settled by the records that follow:
// - a user_message waits one record for the user message it may mirror, and a user message for
//   the user_message that may mirror it (one last in the file is a prompt);
// - user messages read as prompts before the file's first user_message stop being prompts there;
// - a context_compacted waits for the compacted record that would make it a mirror;
// - agent_message and agent_reasoning times wait for the end of the file (they count only when it
//   has no assistant or reasoning items);
// - a tool's output and the end record that reports it failed meet by call id in either order;
// - where a forked rollout's copy of its parent ends is known only later, so records that may be
//   either are read both ways, the state before them cloned, until the copy's end is known.
// Lines are parsed whole with JSON.parse (which also proves them JSON), from a one-byte view of
// the bytes when the file is well-formed UTF-8; a line whose read strings hold characters past
// ASCII is parsed again from its decoded text.
import type { SourceFile, SummaryPass } from '../../adapter.js';
import { boundDepth, MAX_VALUE_DEPTH } from '../../depth.js';
import { decodeUtf8, type LineSpan, splitLines } from '../../lines.js';
import type { Capability, SessionSummaryWithPrompts } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { isWireId } from '../../values.js';
import { hasOneByteView } from '../claude-code/one-byte.js';
import { idFromPath, TOOL_OUTPUTS } from './classify.js';
import { injectedOrigin, messageText } from './content.js';
import { isObject, type Json, recordShape, str, timeAt, unknownGenerationOf } from './records.js';
import { BURST_GAP_MS, isForked, turnStartIdOf, uuidV7Time } from './replay.js';
import { endFailed, TOOL_END_TYPES, toolOutput } from './tools.js';
import { SnapshotReader } from './usage.js';

/** One parsed line, as classify's records see it. */
interface Line {
  type: string;
  sub: string;
  payload: Json;
  ts: number | undefined;
}

const EMPTY: Json = Object.freeze({}) as Json;
const OPEN_BRACE = 0x7b;
const HIGH = /[\u0080-\u00ff]/;
/** A tool output sits at this level of its line (line, payload, output); deeper values are cut as parseJson cuts them. */
const OUTPUT_DEPTH = MAX_VALUE_DEPTH - 2;

type Latin1Slice = (start: number, end: number) => string;

const plain = (v: unknown): boolean => typeof v !== 'string' || !HIGH.test(v);

function contentPlain(content: unknown): boolean {
  if (!Array.isArray(content)) return plain(content);
  for (const part of content) if (isObject(part) && !plain(part.text)) return false;
  return true;
}

/** The strings toolOutput reads: the output text, or the text inside `content`. */
function outputPlain(v: unknown): boolean {
  for (let depth = 0; depth <= MAX_VALUE_DEPTH; depth++) {
    if (typeof v === 'string') return plain(v);
    if (!isObject(v) || !('content' in v)) return true;
    v = v.content;
  }
  return true;
}

/** Whether every string the pass reads from the line as text (not only against an ASCII word) is ASCII. */
function readsPlain(value: Json, { type, sub, payload: p }: Line): boolean {
  if (!plain(value.timestamp)) return false;
  if (type === 'response_item') {
    if (sub === 'message') return p.role !== 'user' || contentPlain(p.content);
    if (TOOL_OUTPUTS.has(sub)) return plain(p.call_id) && outputPlain(p.output);
  } else if (type === 'event_msg') {
    if (sub === 'user_message') return plain(p.message);
    if (TOOL_END_TYPES.has(sub)) return plain(p.call_id);
    if (sub === 'collab_agent_spawn_end') return plain(p.new_thread_id);
  }
  return true;
}

const lineOf = (value: Json, first: boolean): Line => {
  const { type, sub, payload } = recordShape(value, first);
  return { type, sub, payload: payload ?? EMPTY, ts: timeAt(value.timestamp) };
};

const isUserItem = (l: Line): boolean =>
  l.type === 'response_item' && l.sub === 'message' && l.payload.role === 'user';

interface PendingUser {
  text: string;
}

/** What one file's later records may still change about its earlier ones. */
class FileState {
  hasUserMessages = false;
  hasAssistantItems = false;
  hasReasoningItems = false;
  /** The file's prompts start here in the session's list. */
  promptsFrom = 0;
  /** The record before is a user message that an event_msg user_message after it would mirror. */
  lastUser: PendingUser | undefined;
  /** The record before is a user_message that found no user message before it to mirror. */
  pendingUm: { text: string; ts: number | undefined } | undefined;
  /** A context_compacted that a compacted record after it would mirror. */
  pendingContext: { ts: number | undefined } | undefined;
  /** A compacted record that a context_compacted after it mirrors. */
  pendingCompacted = false;
  agentMessages: TimeSpan | undefined;
  agentReasoning: TimeSpan | undefined;
  /** Call ids that an output record answers, with how many of those outputs are not (yet) failed. */
  readonly outputs = new Map<string, number>();
  /** Outputs without a call id not (yet) failed: an end with call id '' fails them. */
  unfailedWithoutId = 0;
  /** Call ids an end record reports as failed. */
  readonly failedCalls = new Set<string>();
  /** Failed end records whose call no output answers so far: each is a failed tool unless one does. */
  readonly failedEnds = new Map<string, number>();

  clone(): FileState {
    const c = new FileState();
    Object.assign(c, this);
    (c as { outputs: Map<string, number> }).outputs = new Map(this.outputs);
    (c as { failedCalls: Set<string> }).failedCalls = new Set(this.failedCalls);
    (c as { failedEnds: Map<string, number> }).failedEnds = new Map(this.failedEnds);
    if (this.lastUser) c.lastUser = { ...this.lastUser };
    if (this.pendingUm) c.pendingUm = { ...this.pendingUm };
    if (this.pendingContext) c.pendingContext = { ...this.pendingContext };
    if (this.agentMessages) c.agentMessages = { ...this.agentMessages };
    if (this.agentReasoning) c.agentReasoning = { ...this.agentReasoning };
    return c;
  }
}

interface TimeSpan {
  first: number | undefined;
  last: number | undefined;
}

const widen = (span: TimeSpan | undefined, at: number | undefined): TimeSpan => {
  const s = span ?? { first: undefined, last: undefined };
  if (at !== undefined) {
    if (s.first === undefined || at < s.first) s.first = at;
    if (s.last === undefined || at > s.last) s.last = at;
  }
  return s;
};

/** Everything the numbers depend on so far; cloned where a forked rollout's copy may end. */
class RolloutState {
  span: TimeSpan = { first: undefined, last: undefined };
  failedTools = 0;
  compactions = 0;
  /** Each request's input, output, cache read and cache write tokens, in order. */
  usages: number[] = [];
  prompts: string[] = [];
  lanes = new Set<string>();
  haveMeta = false;
  sawUsage = false;
  reasoning = false;
  compaction = false;
  subagents = false;
  snapshots = new SnapshotReader();
  file = new FileState();

  constructor(public sessionId: string) {}

  clone(): RolloutState {
    const c = new RolloutState(this.sessionId);
    Object.assign(c, this);
    c.span = { ...this.span };
    c.usages = [...this.usages];
    c.prompts = [...this.prompts];
    c.lanes = new Set(this.lanes);
    c.snapshots = this.snapshots.clone();
    c.file = this.file.clone();
    return c;
  }

  private time(at: number | undefined): void {
    this.span = widen(this.span, at);
  }

  startFile(): void {
    this.file = new FileState();
    this.file.promptsFrom = this.prompts.length;
  }

  /** A record of the parent's history copied into a forked rollout: only the running totals move. */
  copied(l: Line): void {
    if (l.type === 'event_msg' && l.sub === 'token_count') this.snapshots.next(l.payload.info);
  }

  /** A record of the file's own, `first` when it is the file's first parsed record. */
  own(l: Line, first: boolean): void {
    const f = this.file;
    const p = l.payload;
    const before = f.lastUser;
    f.lastUser = undefined;
    const um = f.pendingUm;
    f.pendingUm = undefined;
    const userItem = isUserItem(l);
    const text = userItem ? messageText(p.content).text : '';
    const injected = userItem ? injectedOrigin(text) !== undefined : false;
    // A user_message just before: the mirror of this record when it is a typed user message.
    const mirrored = um !== undefined && userItem && !injected;
    if (um !== undefined && !mirrored) this.userEvent(um.text, um.ts);

    switch (l.type) {
      case 'state':
        return;
      case 'session_meta':
        this.time(l.ts);
        if (!this.haveMeta && first) {
          this.haveMeta = true;
          const id = str(p.id);
          if (id && isWireId(id)) this.sessionId = id;
        }
        return;
      case 'compacted':
        this.compacted(l.ts);
        if (f.pendingContext) f.pendingContext = undefined;
        else f.pendingCompacted = true;
        return;
      case 'response_item':
        this.time(l.ts);
        if (userItem) {
          if (injected) return;
          if (mirrored) this.prompts.push(text);
          else {
            // A prompt for now when the file has no user_message yet; else one only if one follows.
            if (!f.hasUserMessages) this.prompts.push(text);
            f.lastUser = { text };
          }
        } else if (l.sub === 'message' && p.role === 'assistant') f.hasAssistantItems = true;
        else if (l.sub === 'reasoning') {
          f.hasReasoningItems = true;
          this.reasoning = true;
        } else if (TOOL_OUTPUTS.has(l.sub)) this.output(p);
        return;
      case 'event_msg':
        this.eventMsg(l, before);
        return;
      default:
        this.time(l.ts);
    }
  }

  private userEvent(text: string, ts: number | undefined): void {
    this.time(ts);
    this.prompts.push(text);
  }

  private compacted(ts: number | undefined): void {
    this.time(ts);
    this.compactions++;
    this.compaction = true;
  }

  private output(p: Json): void {
    const f = this.file;
    const id = str(p.call_id);
    const failed = toolOutput(boundDepth(p.output, OUTPUT_DEPTH).value).failed;
    if (id !== undefined) f.failedEnds.delete(id);
    if (failed || f.failedCalls.has(id ?? '')) this.failedTools++;
    else if (id === undefined) f.unfailedWithoutId++;
    else f.outputs.set(id, (f.outputs.get(id) ?? 0) + 1);
    if (id !== undefined && !f.outputs.has(id)) f.outputs.set(id, 0);
  }

  private eventMsg(l: Line, before: PendingUser | undefined): void {
    const f = this.file;
    const p = l.payload;
    const sub = l.sub;
    switch (sub) {
      case 'token_count': {
        if (isObject(p.info)) this.sawUsage = true;
        const snap = this.snapshots.next(p.info);
        if (!snap.ok) return;
        this.time(l.ts);
        const u = snap.usage;
        this.usages.push(u.inputTokens, u.outputTokens, u.cacheReadTokens ?? 0, u.cacheWriteTokens ?? 0);
        return;
      }
      case 'user_message': {
        const text = str(p.message) ?? '';
        if (!f.hasUserMessages) {
          f.hasUserMessages = true;
          // Without a user_message the file's user messages were prompts; now only mirrored ones are.
          this.prompts.length = f.promptsFrom;
        }
        if (before) this.prompts.push(before.text);
        else f.pendingUm = { text, ts: l.ts };
        return;
      }
      case 'agent_message':
        f.agentMessages = widen(f.agentMessages, l.ts);
        return;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        f.agentReasoning = widen(f.agentReasoning, l.ts);
        return;
      case 'context_compacted':
        if (f.pendingCompacted) f.pendingCompacted = false;
        else {
          if (f.pendingContext) this.compacted(f.pendingContext.ts);
          f.pendingContext = { ts: l.ts };
        }
        return;
      case 'collab_agent_spawn_end': {
        this.time(l.ts);
        const lane = str(p.new_thread_id);
        if (lane === undefined) return;
        this.subagents = true;
        this.lanes.add(lane);
        return;
      }
    }
    this.time(l.ts);
    if (!TOOL_END_TYPES.has(sub)) return;
    const id = str(p.call_id);
    if (id === undefined || !endFailed(sub, p)) return;
    f.failedCalls.add(id);
    const unfailed = f.outputs.get(id);
    if (unfailed !== undefined) {
      this.failedTools += unfailed;
      f.outputs.set(id, 0);
    } else f.failedEnds.set(id, (f.failedEnds.get(id) ?? 0) + 1);
    if (id === '') {
      this.failedTools += f.unfailedWithoutId;
      f.unfailedWithoutId = 0;
    }
  }

  /** Settles what the end of the file decides. */
  endFile(): void {
    const f = this.file;
    if (f.pendingUm) this.userEvent(f.pendingUm.text, f.pendingUm.ts);
    f.pendingUm = undefined;
    // A user message last in the file, which nothing came to mirror, is taken for a prompt.
    if (f.lastUser && f.hasUserMessages) this.prompts.push(f.lastUser.text);
    f.lastUser = undefined;
    if (f.pendingContext) this.compacted(f.pendingContext.ts);
    f.pendingContext = undefined;
    if (f.agentMessages && !f.hasAssistantItems) {
      this.time(f.agentMessages.first);
      this.time(f.agentMessages.last);
    }
    if (f.agentReasoning && !f.hasReasoningItems) {
      this.reasoning = true;
      this.time(f.agentReasoning.first);
      this.time(f.agentReasoning.last);
    }
    for (const n of f.failedEnds.values()) this.failedTools += n;
    f.failedEnds.clear();
  }

  summary(): SessionSummaryWithPrompts {
    const tally = new SummaryTally();
    tally.turns = this.prompts.length;
    tally.failedTools = this.failedTools;
    tally.compactions = this.compactions;
    tally.time(this.span.first);
    tally.time(this.span.last);
    const u = this.usages;
    for (let i = 0; i < u.length; i += 4)
      tally.request(
        {
          inputTokens: u[i]!,
          outputTokens: u[i + 1]!,
          cacheReadTokens: u[i + 2]!,
          cacheWriteTokens: u[i + 3]!,
        },
        true,
      );
    const capabilities: Capability[] = [];
    if (this.sawUsage) capabilities.push('requests', 'usage');
    if (this.span.first !== undefined) capabilities.push('durations');
    if (this.reasoning) capabilities.push('reasoning');
    if (this.compaction) capabilities.push('compaction');
    if (this.subagents) capabilities.push('subagents');
    const lanes = new Set(this.lanes);
    lanes.delete(this.sessionId);
    const summary: SessionSummaryWithPrompts = tally.summary(capabilities, lanes.size);
    summary.prompts = this.prompts;
    return summary;
  }
}

/** Where a forked rollout is in telling its copy of the parent from its own records (see replay.ts). */
type Replay =
  /** Nothing is copied, or the copy has ended. */
  | { phase: 'none' }
  /** Records since the session_meta: all copied or all the rollout's own, not yet known which. */
  | { phase: 'start'; forkTime: number | undefined }
  /** A turn start of the parent's was seen: copied until the rollout's own first turn start. */
  | { phase: 'copy'; forkTime: number }
  /** Inside a burst of usage snapshots: records since the last of them are copied if another follows soon. */
  | { phase: 'burst'; previous: number };

const isUsage = (l: Line): boolean =>
  l.type === 'event_msg' && l.sub === 'token_count' && isObject(l.payload.info);

class CodexSummarizer {
  private s: RolloutState;
  /** The state as if the records whose reading is not yet known were the rollout's own. */
  private alt: RolloutState | undefined;
  private replay: Replay = { phase: 'none' };
  private path = '';
  private started = false;
  private first = true;
  private wellFormed = false;

  constructor(paths: readonly string[]) {
    this.s = new RolloutState(paths[0] !== undefined ? idFromPath(paths[0]) : '');
  }

  startFile(path: string, wellFormedUtf8: boolean): void {
    if (this.started) this.endFile();
    this.started = true;
    this.path = path;
    this.first = true;
    this.wellFormed = wellFormedUtf8;
    this.s.startFile();
  }

  private endFile(): void {
    // At the end of the file, records still in question are the rollout's own (replayEnd's rule).
    if (this.replay.phase === 'start' || this.replay.phase === 'burst') this.s = this.alt!;
    this.alt = undefined;
    this.replay = { phase: 'none' };
    this.s.endFile();
  }

  line(
    data: Uint8Array,
    span: LineSpan,
    wellFormedUtf8 = this.wellFormed,
  ): UnknownFormatGeneration | undefined {
    const bytes = data.subarray(span.offset, span.offset + span.length);
    if (this.first) {
      const value = parseExact(bytes);
      if (value === undefined) return undefined;
      this.first = false;
      const why = unknownGenerationOf(value.v);
      if (why !== undefined || !isObject(value.v))
        return unknownFormatGeneration(this.path, span.line, why ?? 'the first record is not a JSON object');
      const l = lineOf(value.v, true);
      this.s.own(l, true);
      if (l.type === 'session_meta' && isForked(l.payload)) {
        this.replay = { phase: 'start', forkTime: uuidV7Time(l.payload.id) ?? l.ts };
        this.alt = this.s.clone();
      }
      return undefined;
    }
    const l = readLine(bytes, wellFormedUtf8);
    if (l !== undefined) this.record(l);
    return undefined;
  }

  private record(l: Line): void {
    const r = this.replay;
    switch (r.phase) {
      case 'none':
        this.s.own(l, false);
        return;
      case 'copy': {
        const created = uuidV7Time(turnStartIdOf(l.type, l.sub, l.payload));
        if (created !== undefined && created >= r.forkTime) {
          this.replay = { phase: 'none' };
          this.s.own(l, false);
        } else this.s.copied(l);
        return;
      }
      case 'start': {
        const created = uuidV7Time(turnStartIdOf(l.type, l.sub, l.payload));
        if (created !== undefined && r.forkTime !== undefined) {
          // A turn start settles it: everything since the session_meta was the parent's.
          this.alt = undefined;
          if (created >= r.forkTime) {
            this.replay = { phase: 'none' };
            this.s.own(l, false);
          } else {
            this.replay = { phase: 'copy', forkTime: r.forkTime };
            this.s.copied(l);
          }
          return;
        }
        if (isUsage(l)) {
          if (l.ts === undefined) {
            this.settleOwn(l);
            return;
          }
          this.replay = { phase: 'burst', previous: l.ts };
        }
        this.both(l);
        return;
      }
      case 'burst': {
        if (!isUsage(l)) {
          this.both(l);
          return;
        }
        const gap = l.ts === undefined ? undefined : l.ts - r.previous;
        if (gap === undefined || gap < 0 || gap > BURST_GAP_MS) {
          this.settleOwn(l);
          return;
        }
        // Another snapshot of the burst: everything up to it was copied.
        this.s.copied(l);
        this.alt = this.s.clone();
        this.replay = { phase: 'burst', previous: l.ts! };
        return;
      }
    }
  }

  /** A record whose reading is not yet known: read both ways. */
  private both(l: Line): void {
    this.s.copied(l);
    this.alt!.own(l, false);
  }

  /** The records in question were the rollout's own; `l` is too. */
  private settleOwn(l: Line): void {
    this.s = this.alt!;
    this.alt = undefined;
    this.replay = { phase: 'none' };
    this.s.own(l, false);
  }

  finish(): SessionSummaryWithPrompts {
    if (this.started) this.endFile();
    return this.s.summary();
  }
}

/** A line parsed the way readRecords parses it; undefined when it is no record. */
function parseExact(bytes: Uint8Array): { v: unknown } | undefined {
  if (bytes.length === 0 || bytes.indexOf(0) !== -1) return undefined;
  const text = decodeUtf8(bytes);
  if (text === undefined) return undefined;
  try {
    return { v: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** A line after the file's first record, read from its one-byte view where that reads the same. */
function readLine(bytes: Uint8Array, wellFormed: boolean): Line | undefined {
  if (wellFormed && bytes[0] === OPEN_BRACE && hasOneByteView(bytes)) {
    let value: unknown;
    try {
      value = JSON.parse((bytes as OneByte).latin1Slice(0, bytes.length));
    } catch {
      // Well-formed UTF-8 that is not JSON read one byte a character is not JSON decoded either.
      return undefined;
    }
    if (isObject(value)) {
      const l = lineOf(value, false);
      if (readsPlain(value, l)) return l;
    }
  }
  const parsed = parseExact(bytes);
  if (parsed === undefined) return undefined;
  return isObject(parsed.v) ? lineOf(parsed.v, false) : lineOf({}, false);
}

type OneByte = Uint8Array & { latin1Slice: Latin1Slice };

export function summarizeRollouts(
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const s = new CodexSummarizer(files.map((f) => f.path));
  for (const file of files) {
    s.startFile(file.path, file.wellFormedUtf8 === true);
    for (const span of splitLines(file.data)) {
      const failure = s.line(file.data, span);
      if (failure) return err(failure);
    }
  }
  return ok(s.finish());
}

/** summarizeRollouts fed one line at a time, for files read in chunks. */
export function codexSummaryPass(paths: readonly string[]): SummaryPass {
  const s = new CodexSummarizer(paths);
  return {
    startFile: (index, wellFormedUtf8) => s.startFile(paths[index] ?? '', wellFormedUtf8),
    line: (data, span, wellFormedUtf8) => s.line(data, span, wellFormedUtf8),
    finish: () => ok(s.finish()),
  };
}
