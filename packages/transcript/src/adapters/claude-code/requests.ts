// A session's requests without building events: what the usage reports read of a Claude Code
// session (each request's time, model and largest usage, the main lane's folder and the title),
// by the rules translate follows. Every line is still parsed, from its one-byte view when the
// file is well-formed UTF-8, so a damaged line is dropped here exactly when translate drops it;
// only the records' few members the requests need are read.
//
// Requests come out in the order translate's time merge of the files gives them. The merge places
// events by their records' times, so each file keeps, in order, the time of every timed record
// that makes an event (by translate's rules, as the summary pass tells them) and the request it
// made, if any; an untimed event takes the time before it and moves nothing. A session whose first
// record is of an unknown generation is left to the full translation ('unsure'), which says why.
import type { SourceFile } from '../../adapter.js';
import { type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type { Usage } from '../../model.js';
import { subagentFolderSession } from './files.js';
import { TimeMerge } from './merge.js';
import { hasOneByteView } from './one-byte.js';
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

/** One request as the usage reports take it. */
export interface PassRequest {
  at: number;
  model: string;
  usage: Usage;
}

export interface PassRequests {
  requests: PassRequest[];
  cwd?: string;
  title?: string;
}

interface RequestState {
  at: number | undefined;
  model: string | undefined;
  usage: Usage | undefined;
}

const OPEN_BRACE = 0x7b;
const HIGH = /[\u0080-\u00ff]/;
const plain = (v: unknown): boolean => typeof v !== 'string' || !HIGH.test(v);

type Latin1Slice = (start: number, end: number) => string;

/** Whether every string read here as text is ASCII, so that its one-byte reading is its text. */
function readsPlain(r: Rec): boolean {
  if (!plain(r.type) || !plain(r.uuid) || !plain(r.timestamp) || !plain(r.requestId) || !plain(r.cwd))
    return false;
  for (const key of ['customTitle', 'title', 'agentName', 'aiTitle', 'summary'])
    if (!plain(r[key])) return false;
  const message = rec(r.message);
  return !message || (plain(message.id) && plain(message.model));
}

/** The parsed line: from its one-byte view where that reads the same, else decoded. */
function lineValue(data: Uint8Array, span: LineSpan, oneByte: boolean): { value: unknown } | undefined {
  if (oneByte && data[span.offset] === OPEN_BRACE) {
    let value: unknown;
    try {
      value = JSON.parse(
        (data as unknown as { latin1Slice: Latin1Slice }).latin1Slice(span.offset, span.offset + span.length),
      );
    } catch {
      // Well-formed UTF-8 that is not JSON read a byte a character is not JSON decoded either.
      return undefined;
    }
    if (isRec(value) && readsPlain(value)) return { value };
  }
  const parsed = parseJsonLine(data, span);
  return parsed.ok ? { value: parsed.value } : undefined;
}

class RequestPass {
  private readonly requests = new Map<string, RequestState>();
  /** message.id → key of the main-thread request that produced it, to spot sidechain replays. */
  private readonly mainRequestOfMessage = new Map<string, string>();
  private readonly fileOfUuid = new Map<string, number>();
  private readonly titles: { custom?: string; agentName?: string; ai?: string; summary?: string } = {};
  private cwd: string | undefined;
  /** Per file, its timed records that make events, with the request each made. */
  private readonly timed: { at: number; request?: RequestState }[][] = [];

  constructor(private readonly hasMain: boolean) {}

  /** One file's records; false when the pass cannot promise translate's answer for the session. */
  file(index: number, file: SourceFile): boolean {
    const oneByte = file.wellFormedUtf8 === true && hasOneByteView(file.data);
    const mainLane = index === 0 && this.hasMain;
    let first = true;
    const timed: { at: number; request?: RequestState }[] = [];
    this.timed[index] = timed;
    for (const span of splitLines(file.data)) {
      const line = lineValue(file.data, span, oneByte);
      if (line === undefined) continue;
      if (first) {
        first = false;
        if (unknownGeneration(line.value) !== undefined) return false;
      }
      const r = line.value;
      if (!isRec(r)) continue;
      const uuid = str(r.uuid);
      if (uuid !== undefined) {
        const seenIn = this.fileOfUuid.get(uuid);
        // A record another file holds already is a replay: translate skips it whole.
        if (seenIn !== undefined && seenIn !== index) continue;
        this.fileOfUuid.set(uuid, index);
      }
      if (mainLane) this.cwd ??= str(r.cwd);
      const at = timestampOf(r.timestamp);
      const type = str(r.type) ?? '';
      if (type === 'assistant') {
        const made = this.assistant(r, at);
        if (made && at !== undefined) timed.push(made === true ? { at } : { at, request: made });
      } else if (TITLE_TYPES.has(type)) {
        if (mainLane) this.title(type, r);
      } else if (at !== undefined && makesEvent(type, r)) timed.push({ at });
    }
    return true;
  }

  /** The request the line made, true when it made other events only, false when it made none. */
  private assistant(r: Rec, at: number | undefined): RequestState | boolean {
    const message = rec(r.message) ?? {};
    const content = message.content;
    // Each block that is an object makes an event; text given as a string is one block.
    const blocks = typeof content === 'string' || (Array.isArray(content) && content.some(isRec));
    const key = requestKeyOf(r, message);
    if (key === undefined) return blocks;
    const messageId = str(message.id) ?? '';
    const mainKey = this.mainRequestOfMessage.get(messageId);
    // A side question replays the parent's messages under new request ids: no request, no events.
    if (r.isSidechain === true && mainKey !== undefined && mainKey !== key) return false;
    if (r.isSidechain !== true && mainKey === undefined) this.mainRequestOfMessage.set(messageId, key);
    const usage = usageOf(message.usage);
    const model = str(message.model);
    const existing = this.requests.get(key);
    if (existing) {
      if (usage && isLargerUsage(usage, existing.usage)) existing.usage = usage;
      if (existing.model === undefined && model !== undefined) existing.model = model;
      return blocks;
    }
    const made: RequestState = { at, model, usage };
    this.requests.set(key, made);
    return made;
  }

  private title(type: string, r: Rec): void {
    const t = this.titles;
    if (type === 'custom-title') t.custom = str(r.customTitle) ?? str(r.title) ?? t.custom;
    else if (type === 'agent-name') t.agentName = str(r.agentName) ?? t.agentName;
    else if (type === 'ai-title') t.ai = str(r.aiTitle) ?? str(r.title) ?? t.ai;
    else if (type === 'summary') t.summary = str(r.summary) ?? t.summary;
  }

  finish(): PassRequests {
    // The files' records merged by time as translate merges their events.
    const merge = new TimeMerge<{ at: number; request?: RequestState }>((item) => item.at);
    for (const [i, items] of this.timed.entries()) merge.add(i, items);
    const requests: PassRequest[] = [];
    for (const { at, request } of merge.items)
      if (request?.model !== undefined && request.usage !== undefined)
        requests.push({ at, model: request.model, usage: request.usage });
    const out: PassRequests = { requests };
    if (this.cwd !== undefined) out.cwd = this.cwd;
    const t = this.titles;
    const title = t.custom ?? t.agentName ?? t.ai ?? t.summary;
    if (title !== undefined) out.title = title;
    return out;
  }
}

/** Whether a record other than an assistant's or a title makes an event in translate. */
function makesEvent(type: string, r: Rec): boolean {
  // A hook's progress is an event; other progress is the subagent's file's or nothing.
  if (type === 'progress') return rec(r.data)?.type === 'hook_progress';
  return !BOOKKEEPING_TYPES.has(type);
}

/**
 * The requests of a Claude Code session's files (main file first, then its subagents'), or
 * 'unsure' when only the full translation can say (see the top of this file).
 */
export function claudeRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  const orphan = files[0] !== undefined && subagentFolderSession(files[0].path) !== undefined;
  const pass = new RequestPass(!orphan);
  for (const [i, file] of files.entries()) if (!pass.file(i, file)) return 'unsure';
  return pass.finish();
}
