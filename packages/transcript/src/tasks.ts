// The per-session jobs that can run on worker threads: the same code runs in-process too.
import { loadTranscript } from './load.js';
import type { SessionSummaryWithPrompts, SessionTarget, Usage } from './model.js';
import { modelAndTime } from './model-and-time.js';
import type { SessionPlatform } from './platform.js';
import { type SessionRequests, sessionRequestsRead } from './request-pass.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';
import { type SessionFileStamp, sessionStamps } from './stamps.js';
import { foldTranscript, type SessionPromptsOptions, summarizeSession } from './summary.js';

export interface TaskResults {
  summary: SessionSummaryWithPrompts;
  /** The summary and its files' stamps taken before they were read, for a caller that keeps it. */
  stampedSummary: { summary: SessionSummaryWithPrompts; stamps: SessionFileStamp[] };
  /** Each request with a time, a model and tokens, the session's folder and title, and the files'
   * stamps taken before they were read (for a caller that keeps the requests). */
  requests: SessionRequests;
  /** stampedSummary, with the main lane's model, the active time and each request's model and
   * usage (to be priced by the caller) when the session is at most SUMMARY_FACTS_MAX_BYTES. */
  summaryFacts: {
    summary: SessionSummaryWithPrompts;
    stamps: SessionFileStamp[];
    facts?: SummaryFacts;
  };
  /** Loading without handing the transcript back: what a consumer of every transcript pays. */
  load: { events: number; skipped: number };
}
export type TaskName = keyof TaskResults;

/** What a session's numbers lack and a read of its whole transcript gives. */
export interface SummaryFacts {
  model?: string;
  activeMs?: number;
  requests: { model: string; usage: Usage }[];
}

/**
 * Sessions up to this size are read whole for their facts: the model and the active time need the
 * lanes and the turns, which the numbers alone lack. A larger one is only counted, in bounded memory.
 */
export const SUMMARY_FACTS_MAX_BYTES = 64 * 1024 * 1024;

export interface TaskOptions {
  prompts?: SessionPromptsOptions;
}

export async function runTask<T extends TaskName>(
  task: T,
  platform: SessionPlatform,
  target: SessionTarget,
  options: TaskOptions = {},
): Promise<Result<TaskResults[T], LoadTranscriptError>> {
  const prompts = options.prompts ? { prompts: options.prompts } : {};
  if (task === 'summary')
    return (await summarizeSession(platform, target, prompts)) as Result<TaskResults[T], LoadTranscriptError>;
  if (task === 'stampedSummary') {
    let stamps: SessionFileStamp[] = [];
    const summary = await summarizeSession(platform, target, { ...prompts, onStamps: (s) => (stamps = s) });
    return (summary.ok ? ok({ summary: summary.value, stamps }) : summary) as Result<
      TaskResults[T],
      LoadTranscriptError
    >;
  }
  if (task === 'summaryFacts') {
    const before = await sessionStamps(platform, target);
    if (before && before.reduce((n, s) => n + s.size, 0) <= SUMMARY_FACTS_MAX_BYTES) {
      // The numbers are folded from the one read the facts need: the adapter's own summary pass
      // would read the files a second time. Stamped before the read, so a file that grows meanwhile
      // is read again next time rather than kept stale.
      const loaded = await loadTranscript(platform, target);
      if (!loaded.ok) return loaded;
      const summary = foldTranscript(loaded.value, { prompts: options.prompts ?? false });
      const { model, activeMs } = modelAndTime(loaded.value);
      const requests: SummaryFacts['requests'] = [];
      for (const e of loaded.value.events)
        if (e.kind === 'request' && e.payload.model !== undefined && e.payload.usage !== undefined)
          requests.push({ model: e.payload.model, usage: e.payload.usage });
      const facts: SummaryFacts = {
        ...(model !== undefined ? { model } : {}),
        ...(activeMs !== undefined ? { activeMs } : {}),
        requests,
      };
      return ok({ summary, stamps: before, facts }) as Result<TaskResults[T], LoadTranscriptError>;
    }
    let stamps: SessionFileStamp[] = [];
    const summary = await summarizeSession(platform, target, { ...prompts, onStamps: (s) => (stamps = s) });
    if (!summary.ok) return summary;
    return ok({ summary: summary.value, stamps }) as Result<TaskResults[T], LoadTranscriptError>;
  }
  if (task === 'requests')
    return (await sessionRequestsRead(platform, target)) as Result<TaskResults[T], LoadTranscriptError>;
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) return loaded;
  return ok({ events: loaded.value.events.length, skipped: loaded.value.skipped.length }) as Result<
    TaskResults[T],
    LoadTranscriptError
  >;
}
