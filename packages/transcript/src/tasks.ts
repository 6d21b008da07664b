// The per-session jobs that can run on worker threads: the same code runs in-process too.
import { loadTranscript } from './load.js';
import type { SessionSummaryWithPrompts, SessionTarget } from './model.js';
import type { SessionPlatform } from './platform.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';
import { type SessionPromptsOptions, summarizeSession } from './summary.js';

export interface TaskResults {
  summary: SessionSummaryWithPrompts;
  /** Loading without handing the transcript back: what a consumer of every transcript pays. */
  load: { events: number; skipped: number };
}
export type TaskName = keyof TaskResults;

export interface TaskOptions {
  prompts?: SessionPromptsOptions;
}

export async function runTask<T extends TaskName>(
  task: T,
  platform: SessionPlatform,
  target: SessionTarget,
  options: TaskOptions = {},
): Promise<Result<TaskResults[T], LoadTranscriptError>> {
  if (task === 'summary') {
    return (await summarizeSession(
      platform,
      target,
      options.prompts ? { prompts: options.prompts } : {},
    )) as Result<TaskResults[T], LoadTranscriptError>;
  }
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) return loaded;
  return ok({ events: loaded.value.events.length, skipped: loaded.value.skipped.length }) as Result<
    TaskResults[T],
    LoadTranscriptError
  >;
}
