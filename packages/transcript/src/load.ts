// loadTranscript: every file of a session into one Transcript.
import type { TranslatedSession } from './adapter.js';
import { lineParts, Translator } from './incremental.js';
import type { SessionTarget, Transcript } from './model.js';
import { type OpenOptions, openSession } from './open.js';
import type { SessionPlatform } from './platform.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';

export type LoadTranscriptOptions = OpenOptions;

/**
 * Reads every file of a session into one Transcript. Expected failures are values; an abort
 * rejects with `signal.reason`.
 */
export async function loadTranscript(
  platform: SessionPlatform,
  target: SessionTarget,
  options: LoadTranscriptOptions = {},
): Promise<Result<Transcript, LoadTranscriptError>> {
  const opened = await openSession(platform, target, options);
  if (!opened.ok) return opened;
  const { adapter, files } = opened.value;
  // A long file goes in parts through the translation that continues from where it stopped, so
  // that only a part's parsed lines are alive at once rather than the whole file's.
  if (adapter.incremental && (files[0]?.data.length ?? 0) > LOAD_PART_BYTES) {
    const translator = new Translator(adapter);
    for (const part of lineParts(files, LOAD_PART_BYTES)) {
      const pushed = translator.push(part);
      if (!pushed.ok) return pushed;
    }
    return ok(translator.snapshot());
  }
  const translated = adapter.translate(files);
  if (!translated.ok) return translated;
  return ok(finishTranscript(adapter.id, translated.value));
}

/** Bytes of a long file's main file read in each part. */
const LOAD_PART_BYTES = 16 * 1024 * 1024;

/** Numbers events in order and marks results whose call is nowhere in the transcript. */
export function finishTranscript(agent: string, t: TranslatedSession): Transcript {
  const callIds = new Set<string>();
  for (const e of t.events) if (e.kind === 'tool_call') callIds.add(e.payload.callId);
  t.events.forEach((e, i) => {
    e.seq = i;
    if (e.kind === 'tool_result' && !callIds.has(e.payload.callId)) e.payload.orphan = true;
  });
  const transcript: Transcript = {
    agent,
    agents: t.agents,
    capabilities: t.capabilities,
    events: t.events,
    session: t.session,
    skipped: t.skipped,
  };
  if (t.agentVersion !== undefined) transcript.agentVersion = t.agentVersion;
  return transcript;
}
