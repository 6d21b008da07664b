// A Claude Code session (main file, then subagent files) into one transcript.
import type { SourceFile, TranslatedSession } from '../../adapter.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import { CAPABILITIES, type Capability, type TranscriptEvent, type TranscriptSession } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { UniqueIds } from '../../unique-ids.js';
import { isWireId } from '../../values.js';
import { applyCompactions } from './compaction.js';
import { type ParsedLine, SessionTranslator } from './events.js';
import { subagentFolderSession } from './files.js';
import { buildLanes, type SubagentLane } from './lanes.js';
import { mergeByTime } from './merge.js';
import { agentIdFromPath, fileStem, isRec, str, unknownGeneration } from './records.js';

/** Every line of a file, parsed or with the reason it could not be. */
export function parseLines(file: SourceFile): ParsedLine[] {
  const lines: ParsedLine[] = [];
  for (const span of splitLines(file.data)) {
    const parsed = parseJsonLine(file.data, span);
    lines.push(parsed.ok ? { span, value: parsed.value } : { span, reason: parsed.reason });
  }
  return lines;
}

export function translateClaudeCode(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  // Files that start in a session's subagents folder are a session whose main file is gone.
  const orphanOf = files[0] ? subagentFolderSession(files[0].path) : undefined;
  const sessionId = orphanOf?.sid ?? (files[0] ? fileStem(files[0].path) : '');
  const translator = new SessionTranslator();
  const perFile: TranscriptEvent[][] = [];
  const subagents: SubagentLane[] = [];
  const laneIds = new UniqueIds();
  laneIds.take(sessionId);
  for (const [i, file] of files.entries()) {
    const lines = parseLines(file);
    const first = lines.find((l) => l.reason === undefined);
    const unknown = first && unknownGeneration(first.value);
    if (first && unknown !== undefined)
      return err(unknownFormatGeneration(file.path, first.span.line, unknown));
    const isMain = i === 0 && orphanOf === undefined;
    const lane = isMain ? sessionId : laneIds.take(recordedAgentId(lines) ?? agentIdFromPath(file.path));
    const events = translator.translateFile(i, file, lane, isMain, lines);
    applyCompactions(events);
    perFile.push(events);
    if (!isMain) subagents.push({ id: lane, events });
  }

  const events = mergeByTime(perFile, (e) => e.timestamp);
  const agents = buildLanes(sessionId, subagents, events, translator.spawnLinks);
  const session: TranscriptSession = { id: sessionId };
  if (orphanOf) session.mainFileMissing = true;
  if (translator.cwd !== undefined) session.cwd = translator.cwd;
  let started: number | undefined;
  let ended: number | undefined;
  for (const e of events) {
    if (e.timestamp === undefined) continue;
    if (started === undefined || e.timestamp < started) started = e.timestamp;
    if (ended === undefined || e.timestamp > ended) ended = e.timestamp;
  }
  if (started !== undefined) session.startedAt = started;
  if (ended !== undefined) session.endedAt = ended;
  const t = translator.titles;
  const title = t.custom ?? t.agentName ?? t.ai ?? t.summary;
  if (title !== undefined) session.title = title;

  const translated: TranslatedSession = {
    agents,
    capabilities: capabilitiesOf(events, agents.length),
    events,
    session,
    skipped: translator.skipped,
  };
  if (translator.version !== undefined) translated.agentVersion = translator.version;
  return ok(translated);
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

/** The capabilities these files show. */
export function capabilitiesOf(events: readonly TranscriptEvent[], lanes: number): Capability[] {
  const shown = new Set<Capability>();
  if (lanes > 1) shown.add('subagents');
  for (const e of events) {
    if (e.timestamp !== undefined) shown.add('durations');
    if (e.kind === 'request') {
      shown.add('requests');
      if (e.payload.usage) shown.add('usage');
    } else if (e.kind === 'reasoning') shown.add('reasoning');
    else if (e.kind === 'hook') shown.add('hooks');
    else if (e.kind === 'compaction') {
      shown.add('compaction');
      if (e.payload.preTokens !== undefined) shown.add('compactionTokens');
    }
  }
  return CAPABILITIES.filter((c) => shown.has(c));
}
