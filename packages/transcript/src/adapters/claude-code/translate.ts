// A Claude Code session (main file, then subagent files) into one transcript, read as the files
// grow: each push translates the lines past the last one read.
import {
  fileEnd,
  type IncrementalTranslation,
  type SourceFile,
  type TranslatedSession,
  type TranslationDelta,
} from '../../adapter.js';
import { appendAll, insertAll } from '../../arrays.js';
import { nextLineOffset, parsedLines } from '../../lines.js';
import {
  CAPABILITIES,
  type Capability,
  type SkippedRecord,
  type TranscriptEvent,
  type TranscriptEventOf,
  type TranscriptSession,
} from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { UniqueIds } from '../../unique-ids.js';
import { isWireId } from '../../values.js';
import { Compactions } from './compaction.js';
import { type ParsedLine, SessionTranslator } from './events.js';
import { subagentFolderSession } from './files.js';
import { buildLanes, promptTitle, type SpawnIndex, spawnSketch } from './lanes.js';
import { TimeMerge } from './merge.js';
import { agentIdFromPath, fileStem, isRec, str, unknownGeneration } from './records.js';

/** The lines of a file from byte `from` (line `line`), parsed or with the reason they could not be. */
export function parseLines(file: SourceFile, from = 0, line = 1): ParsedLine[] {
  const lines: ParsedLine[] = [];
  for (const { span, parsed } of parsedLines(file, from, line))
    lines.push(parsed.ok ? { span, value: parsed.value } : { span, reason: parsed.reason });
  return lines;
}

export function translateClaudeCode(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const translation = new ClaudeTranslation();
  const pushed = translation.push(files);
  if (!pushed.ok) return pushed;
  return ok(translation.snapshot());
}

/** What is kept of one file between pushes. */
interface FileState {
  path: string;
  /** Bytes read so far, and the number of the next line. */
  offset: number;
  nextLine: number;
  /** The last line read had no newline after it: if it grows, what was read of it was not all. */
  endsOpen: boolean;
  lane: string;
  /** The lane id came from the file's name, for want of a recorded agentId. */
  laneFromName: boolean;
  isMain: boolean;
  /** Whether the file's first record was checked for its format generation. */
  checked: boolean;
  compactions: Compactions;
  /** The lane's title from its first prompt; undefined until a prompt decides it. */
  title: { value: string | undefined } | undefined;
  /** Agent id → the call of its first agent_progress record in this file. */
  links: Map<string, string>;
  /** Where this file's skipped records end in the session's list, which is in file order. */
  skippedEnd: number;
}

export class ClaudeTranslation implements IncrementalTranslation, SpawnIndex {
  private readonly translator = new SessionTranslator();
  private readonly files: FileState[] = [];
  private readonly merge = new TimeMerge<TranscriptEvent>((e) => e.timestamp);
  private readonly laneIds = new UniqueIds();
  private readonly skipped: SkippedRecord[] = [];
  private readonly shown = new Set<Capability>();
  readonly calls = new Map<string, TranscriptEventOf<'tool_call'>>();
  private readonly agentCalls = new Map<string, TranscriptEventOf<'tool_result'>>();
  /** Events let go of: the merged list's first event is the session's this-many-th. */
  private dropped = 0;
  private orphanOf: { sid: string } | undefined;
  private sessionId = '';
  private started: number | undefined;
  private ended: number | undefined;

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    if (files.length < this.files.length) return ok('rewrite');
    for (const [i, f] of this.files.entries()) {
      const now = files[i]!;
      const end = fileEnd(now);
      if (now.path !== f.path || end < f.offset || (f.endsOpen && end > f.offset)) return ok('rewrite');
    }
    if (this.files.length === 0 && files[0]) {
      this.orphanOf = subagentFolderSession(files[0].path);
      this.sessionId = this.orphanOf?.sid ?? fileStem(files[0].path);
      this.laneIds.take(this.sessionId);
    }

    const updated: TranscriptEvent[] = [];
    const revised: TranscriptEvent[] = [];
    const added: TranscriptEvent[] = [];
    let from = this.merge.items.length;
    for (const [i, file] of files.entries()) {
      const lines = parseLines(file, this.files[i]?.offset ?? 0, this.files[i]?.nextLine ?? 1);
      const state = this.files[i] ?? this.open(i, file, lines);
      const recorded = state.laneFromName && !state.isMain ? recordedAgentId(lines) : undefined;
      // The lane was named after the file before its records said whose they are.
      if (recorded !== undefined && this.files[i] !== undefined) return ok('rewrite');
      if (lines.length === 0) {
        this.files[i] = state;
        continue;
      }
      if (!state.checked) {
        const first = lines.find((l) => l.reason === undefined);
        const unknown = first && unknownGeneration(first.value);
        if (first && unknown !== undefined)
          return err(unknownFormatGeneration(file.path, first.span.line, unknown));
        if (first) state.checked = true;
      }
      this.files[i] = state;
      const last = lines[lines.length - 1]!.span;
      state.offset = nextLineOffset(file, last);
      state.nextLine = last.line + 1;
      state.endsOpen = last.unterminated;

      const events = this.translator.translateFile(i, file, state.lane, state.isMain, lines);
      this.takeSkipped(i);
      const { shadowed, summarized } = state.compactions.add(events);
      appendAll(updated, shadowed);
      appendAll(revised, summarized);
      if (!state.isMain && state.title === undefined) {
        const title = promptTitle(state.lane, events);
        if (title !== null) state.title = { value: title };
      }
      for (const link of this.translator.spawnLinks)
        if (!state.links.has(link.agentId)) state.links.set(link.agentId, link.callId);
      this.translator.spawnLinks.length = 0;
      from = Math.min(from, this.merge.add(i, events));
      appendAll(added, events);
    }
    if (this.translator.crossed) return ok('rewrite');
    // The requests whose usage or stop reason a later record of the same message filled in.
    appendAll(revised, this.translator.updated.splice(0));
    appendAll(updated, revised);

    const merged = this.merge.items;
    for (let at = from; at < merged.length; at++) merged[at]!.seq = this.dropped + at;
    for (const e of added) this.note(e);
    for (const e of updated) if (e.kind === 'request' && e.payload.usage) this.shown.add('usage');
    added.sort((a, b) => a.seq - b.seq);
    return ok({ from, added, updated, revised });
  }

  snapshot(): TranslatedSession {
    const subagents = this.files
      .filter((f) => !f.isMain)
      .map((f) => ({
        id: f.lane,
        title: f.title?.value ?? (f.lane.startsWith('acompact') ? 'compaction' : undefined),
      }));
    const agents = buildLanes(this.sessionId, subagents, this);
    const session: TranscriptSession = { id: this.sessionId };
    if (this.orphanOf) session.mainFileMissing = true;
    const t = this.translator;
    if (t.cwd !== undefined) session.cwd = t.cwd;
    if (this.started !== undefined) session.startedAt = this.started;
    if (this.ended !== undefined) session.endedAt = this.ended;
    const title = t.titles.custom ?? t.titles.agentName ?? t.titles.ai ?? t.titles.summary;
    if (title !== undefined) session.title = title;
    if (agents.length > 1) this.shown.add('subagents');
    const translated: TranslatedSession = {
      agents,
      capabilities: CAPABILITIES.filter((c) => this.shown.has(c)),
      events: this.merge.items,
      session,
      skipped: this.skipped,
    };
    if (t.version !== undefined) translated.agentVersion = t.version;
    return translated;
  }

  /**
   * Lets go of the first `count` merged events. What the lanes are built from later keeps only its
   * sketch: a spawning call's title, a result's agent.
   */
  letGo(count: number): void {
    if (count <= 0) return;
    const merged = this.merge.items;
    for (let i = 0; i < count && i < merged.length; i++) {
      const e = merged[i]!;
      if (e.kind === 'tool_call' && this.calls.get(e.payload.callId) === e)
        this.calls.set(e.payload.callId, spawnSketch(e));
      else if (
        e.kind === 'tool_result' &&
        e.payload.agentId !== undefined &&
        this.agentCalls.get(e.payload.agentId) === e
      )
        this.agentCalls.set(e.payload.agentId, { ...e, payload: { callId: e.payload.callId, output: null } });
    }
    this.merge.letGo(count);
    this.dropped += count;
    for (const f of this.files) f.compactions.letGo(this.dropped);
  }

  callOfAgent(agentId: string): string | undefined {
    const result = this.agentCalls.get(agentId);
    if (result) return result.payload.callId;
    for (const f of this.files) {
      const call = f.links.get(agentId);
      if (call !== undefined) return call;
    }
    return undefined;
  }

  /** A file seen for the first time: its lane, named by its records when they say. */
  private open(index: number, file: SourceFile, lines: readonly ParsedLine[]): FileState {
    const isMain = index === 0 && this.orphanOf === undefined;
    const recorded = isMain ? undefined : recordedAgentId(lines);
    const lane = isMain ? this.sessionId : this.laneIds.take(recorded ?? agentIdFromPath(file.path));
    return {
      path: file.path,
      offset: 0,
      nextLine: 1,
      endsOpen: false,
      lane,
      laneFromName: recorded === undefined,
      isMain,
      checked: false,
      compactions: new Compactions(),
      title: undefined,
      links: new Map(),
      skippedEnd: this.files[index - 1]?.skippedEnd ?? 0,
    };
  }

  /** Moves what the translator skipped for file `index` into its place in the file-ordered list. */
  private takeSkipped(index: number): void {
    const fresh = this.translator.skipped;
    if (fresh.length === 0) return;
    const at = this.files[index]!.skippedEnd;
    insertAll(this.skipped, at, fresh);
    for (let j = index; j < this.files.length; j++) this.files[j]!.skippedEnd += fresh.length;
    fresh.length = 0;
  }

  /** What a new event shows of the session: its times, capabilities and spawn links. */
  private note(e: TranscriptEvent): void {
    if (e.timestamp !== undefined) {
      this.shown.add('durations');
      if (this.started === undefined || e.timestamp < this.started) this.started = e.timestamp;
      if (this.ended === undefined || e.timestamp > this.ended) this.ended = e.timestamp;
    }
    switch (e.kind) {
      case 'request':
        this.shown.add('requests');
        if (e.payload.usage) this.shown.add('usage');
        break;
      case 'reasoning':
        this.shown.add('reasoning');
        break;
      case 'hook':
        this.shown.add('hooks');
        break;
      case 'compaction':
        this.shown.add('compaction');
        if (e.payload.preTokens !== undefined) this.shown.add('compactionTokens');
        break;
      case 'tool_call': {
        // The first call of an id in transcript order names it; a merge can put a later-read one first.
        const known = this.calls.get(e.payload.callId);
        if (!known || e.seq < known.seq) this.calls.set(e.payload.callId, e);
        break;
      }
      case 'tool_result': {
        const agentId = e.payload.agentId;
        if (agentId === undefined) break;
        const known = this.agentCalls.get(agentId);
        if (!known || e.seq < known.seq) this.agentCalls.set(agentId, e);
        break;
      }
    }
  }
}

/** The agentId a subagent file's records carry. */
function recordedAgentId(lines: readonly ParsedLine[]): string | undefined {
  for (const line of lines) {
    const id = isRec(line.value) ? str(line.value.agentId) : undefined;
    // An id the contract cannot carry is no lane id: the file's name stands in for it.
    if (id && isWireId(id)) return id;
  }
  return undefined;
}
