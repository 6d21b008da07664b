// The summary numbers of an OpenCode-family session (a store's rows, its export, or the older JSON
// tree) without building events. Rows are read, laned and ordered by the translation's own code
// (openSessionRows, forEachMessage); each message then counts as Translation.message makes its
// events: a part's time (its start, else its message's) counts when the part makes an event, a
// typed user text on the main lane is a turn, a step-finish is a request with its tokens (reasoning
// counted as output, the cache as input), an assistant message of no step with tokens of its own is
// one request, a failed tool is a failed tool, a compaction part a compaction, and every child
// session that can name a lane a subagent.
import type { SourceFile } from '../../adapter.js';
import type { SessionSummaryWithPrompts, SkippedRecord } from '../../model.js';
import type { Result, UnknownFormatGeneration } from '../../result.js';
import { SummaryTally } from '../../tally.js';
import { isWireId, timestampValue } from '../../values.js';
import { isObject, stringField } from '../gemini-cli/records.js';
import { ShownCapabilities, tallySummary } from '../line-summary.js';
import { forEachMessage, openSessionRows, type Row } from './translate.js';
import { openCodeUsage } from './usage.js';

class OpenCodeSummary {
  readonly tally = new SummaryTally();
  readonly shown = new ShownCapabilities();
  readonly prompts: string[] = [];

  constructor(
    private readonly mainId: string,
    private readonly laneOf: (sessionId: string | undefined) => string,
  ) {}

  /** An event at `at` (a part's or message's time, when it has one). */
  private event(at: number | undefined): void {
    if (at === undefined) return;
    this.shown.durations = true;
    this.tally.time(at);
  }

  message(m: Row, parts: readonly Row[]): void {
    const role = stringField(m.data, 'role');
    const onMain = this.laneOf(m.sessionId ?? stringField(m.data, 'sessionID')) === this.mainId;
    const time = isObject(m.data.time) ? m.data.time : {};
    const created = timestampValue(time.created, 'time.created');
    const completed = timestampValue(time.completed, 'time.completed');
    const isSummary = m.data.summary === true;
    // A request is dated when its message was made, else when it finished.
    const requestAt = created ?? completed;
    let steps = 0;
    for (const p of parts) {
      const type = stringField(p.data, 'type') ?? '';
      const ptime = isObject(p.data.time) ? p.data.time : {};
      const at = timestampValue(ptime.start, 'time.start') ?? created;
      switch (type) {
        case 'step-start':
          break;
        case 'step-finish': {
          steps++;
          this.request(openCodeUsage(p.data.tokens), onMain, requestAt);
          break;
        }
        case 'text': {
          this.event(at);
          if (role === 'user' && onMain && !isSummary && p.data.synthetic !== true) {
            this.tally.turns++;
            this.prompts.push(typeof p.data.text === 'string' ? p.data.text : '');
          }
          break;
        }
        case 'tool':
          this.tool(p, at);
          break;
        case 'compaction':
          this.shown.compaction = true;
          this.tally.compactions++;
          this.event(at);
          break;
        default:
          // reasoning, the system parts and parts of a type OpenCode does not write: one event each.
          this.event(at);
      }
    }
    if (role === 'assistant' && steps === 0) {
      const usage = openCodeUsage(m.data.tokens);
      if (usage) this.request(usage, onMain, requestAt);
    }
    if (isObject(m.data.error)) this.event(completed ?? created);
  }

  private request(usage: ReturnType<typeof openCodeUsage>, onMain: boolean, at: number | undefined): void {
    this.shown.requests = true;
    if (usage) this.shown.usage = true;
    this.tally.request(usage, onMain);
    this.event(at);
  }

  /** A tool part: its call, and its result once the tool completed or failed. */
  private tool(p: Row, at: number | undefined): void {
    this.event(at);
    const state = isObject(p.data.state) ? p.data.state : {};
    const status = stringField(state, 'status');
    if (status === 'pending' || status === 'running') return;
    const failed = status === 'error';
    if (!failed && state.output === undefined && state.error === undefined && status === undefined) return;
    if (failed) this.tally.failedTools++;
    const t = isObject(state.time) ? state.time : {};
    this.event(timestampValue(t.end, 'state.time.end') ?? at);
  }
}

export function summarizeOpenCodeSession(
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  // What is skipped changes no number.
  const skipped: SkippedRecord[] = [];
  const read = openSessionRows(files, skipped);
  if (!read.ok) return read;
  const { mainId, rows, sessions, laneOf } = read.value;
  const pass = new OpenCodeSummary(mainId, laneOf);
  forEachMessage(rows, skipped, (m, parts) => pass.message(m, parts));
  // Each other session that can name a lane is a subagent lane.
  let subagents = 0;
  for (const sid of sessions.keys()) if (sid !== mainId && isWireId(sid)) subagents++;
  return tallySummary(pass.tally, pass.shown, pass.prompts, subagents, ['subagents']);
}
