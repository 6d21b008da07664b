// Whether the files show a turn in flight, and the run state spectral's clients expect for it.
import type { WireRunState } from '@cairn/protocol';
import { isPrompt, type Transcript, type TranscriptEventOf } from '@cairn/transcript';

/** A turn whose files have been silent this long is over, whatever its last record says: the agent
 * was stopped or crashed. */
export const STALE_TURN_MS = 10 * 60_000;

/** Written to this recently, a session counts as active even between turns. */
export const RECENT_WRITE_MS = 30_000;

/** System records that close a turn. */
export const TURN_END: ReadonlySet<string> = new Set([
  'turn_duration',
  'task_complete',
  'stop_hook_summary',
  'turn_aborted',
]);
/** Stop reasons after which the model waits for the person. */
const FINAL_STOPS = new Set(['end_turn', 'stop_sequence', 'max_tokens', 'stop', 'refusal']);

/** Whether the main lane's last records leave a turn open: a prompt, a tool call or a tool result
 * waiting for what comes next. */
export function turnInFlight(t: Transcript): boolean {
  const main = t.agents.find((a) => a.parentId === undefined)?.id ?? t.events[0]?.agentId;
  // Looked for from the end, where a reply's request is: this runs on every append of a live session.
  const requestOf = (id: string): TranscriptEventOf<'request'> | undefined => {
    for (let j = t.events.length - 1; j >= 0; j--) {
      const e = t.events[j]!;
      if (e.kind === 'request' && e.id === id) return e;
    }
    return undefined;
  };
  for (let i = t.events.length - 1; i >= 0; i--) {
    const e = t.events[i]!;
    if (e.agentId !== main) continue;
    switch (e.kind) {
      case 'hook':
      case 'unknown':
        continue;
      case 'system':
        if (TURN_END.has(e.payload.type)) return false;
        continue;
      case 'request': {
        const stop = e.payload.stopReason;
        return stop === undefined || !FINAL_STOPS.has(stop);
      }
      case 'assistant': {
        const request = e.requestId === undefined ? undefined : requestOf(e.requestId);
        const stop = request?.payload.stopReason;
        if (stop !== undefined) return !FINAL_STOPS.has(stop);
        // Without a stop reason, a reply's text is taken as its end: agents write it last.
        return false;
      }
      case 'compaction':
        return false;
      case 'user':
        // A synthetic user record (a command's output, an interruption) is no question to answer.
        return e.payload.origin === 'subagent_prompt' || isPrompt(e, main);
      default:
        // tool_call, tool_result, reasoning: the model or a tool is still at work.
        return true;
    }
  }
  return false;
}

/** The run of the latest prompt on the main lane: its id, and how many prompts came before it. */
export function runStateOf(t: Transcript, busy: boolean): WireRunState {
  const main = t.agents.find((a) => a.parentId === undefined)?.id;
  let runId = t.session.id;
  let generation = 0;
  for (const e of t.events) {
    if (isPrompt(e, main)) {
      runId = e.id;
      generation++;
    }
  }
  return {
    runId,
    generation,
    busy,
    phase: busy ? 'streaming' : 'idle',
    flags: { streaming: busy, retrying: false, compacting: false, looping: false, queued: false },
  };
}

/** Busy: a turn is open and the daemon saw the files change (at `seenChangingAt`, its own clock)
 * recently enough for the turn to be alive. A file's modification time is no such sign: a copy
 * or a restore sets it too. */
export const isBusy = (inFlight: boolean, seenChangingAt: number | undefined, now = Date.now()): boolean =>
  inFlight && seenChangingAt !== undefined && now - seenChangingAt < STALE_TURN_MS;

/** Active: busy, or the daemon saw the files change moments ago. */
export const isActive = (busy: boolean, seenChangingAt: number | undefined, now = Date.now()): boolean =>
  busy || (seenChangingAt !== undefined && now - seenChangingAt < RECENT_WRITE_MS);
