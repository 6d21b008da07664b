// A Gemini CLI session's files (main file first, then subagent files) as one translated session:
// one lane per file, the session's numbers from the main file's metadata.
import type { SourceFile, TranslatedSession } from '../../adapter.js';
import type { Lane, TranscriptEvent, TranscriptSession } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { shownCapabilities } from '../shared.js';
import { EventIds } from './ids.js';
import { translateJsonl } from './jsonl.js';
import { translateLegacy } from './legacy.js';
import { fileStem, isJsonlFile } from './paths.js';
import { toMillis } from './records.js';
import type { TranslatedFile } from './translated-file.js';

export function translateFile(
  file: SourceFile,
  fileIndex: number,
  ids: EventIds,
): Result<TranslatedFile, UnknownFormatGeneration> {
  return isJsonlFile(file.path, file.data)
    ? translateJsonl(file, fileIndex, ids)
    : translateLegacy(file, fileIndex, ids);
}

export function translateSession(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const ids = new EventIds();
  const translated: TranslatedFile[] = [];
  for (const [i, file] of files.entries()) {
    const r = translateFile(file, i, ids);
    if (!r.ok) return r;
    translated.push(r.value);
  }
  return ok(assembleSession(files, translated));
}

/** The translated files as one session: a lane per file, the session's numbers from the main file. */
export function assembleSession(
  files: readonly SourceFile[],
  translated: readonly TranslatedFile[],
): TranslatedSession {
  const agents: Lane[] = [];
  const laneIds = new Set<string>();
  const events: TranscriptEvent[] = [];
  const skipped = translated.flatMap((t) => t.skipped);
  translated.forEach((t, i) => {
    let id = t.meta.sessionId ?? fileStem(files[i]!.path);
    for (let n = 2; laneIds.has(id); n++) id = `${t.meta.sessionId ?? fileStem(files[i]!.path)}#${n}`;
    laneIds.add(id);
    const lane: Lane = { id };
    if (i > 0) {
      lane.parentId = agents[0]!.id;
      if (t.meta.summary !== undefined) lane.title = t.meta.summary;
      // A tool call records the agent it ran for; the one naming this subagent started it.
      const spawn = events.find(
        (e) => e.kind === 'tool_call' && e.agentId === lane.parentId && e.payload.agentId === id,
      );
      if (spawn) lane.spawnEventId = spawn.id;
    }
    agents.push(lane);
    for (const e of t.events) {
      e.agentId = id;
      events.push(e);
    }
  });

  const main = translated[0];
  const session: TranscriptSession = { id: agents[0]?.id ?? '' };
  if (main) {
    let first: number | undefined;
    let last = toMillis(main.meta.lastUpdated);
    for (const e of main.events) {
      if (e.timestamp === undefined) continue;
      if (first === undefined || e.timestamp < first) first = e.timestamp;
      // lastUpdated is not always patched after the last message: the later of the two ends it.
      if (last === undefined || e.timestamp > last) last = e.timestamp;
    }
    const cwd = main.meta.directories?.[0];
    if (cwd !== undefined) session.cwd = cwd;
    const startedAt = toMillis(main.meta.startTime) ?? first;
    if (startedAt !== undefined) session.startedAt = startedAt;
    if (last !== undefined) session.endedAt = last;
    if (main.meta.summary !== undefined) session.title = main.meta.summary;
  }

  return {
    agents,
    capabilities: shownCapabilities(events, agents.length > 1 ? ['subagents'] : []),
    events,
    session,
    skipped,
  };
}
