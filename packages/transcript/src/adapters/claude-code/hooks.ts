// Hook runs, from the three places Claude Code records them.
import type { HookPayload } from '../../model.js';
import { countValue, type InvalidValue, integerValue } from '../../values.js';
import { isRec, type Rec, str } from './records.js';

// Attachment kinds that report a hook that failed, blocked or was cut short.
const FAILED_HOOK_KINDS: ReadonlySet<string> = new Set([
  'hook_non_blocking_error',
  'hook_blocking_error',
  'hook_error_during_execution',
  'hook_cancelled',
]);

/** `progress` with data.type hook_progress: a hook that started. The record (not its data) names
 * the tool call the hook runs around, which is how a reader ties the hook to its call. */
export function hookOfProgress(data: Rec, record?: Rec): HookPayload {
  const payload: HookPayload = { event: str(data.hookEvent) ?? '', status: 'started' };
  const name = str(data.hookName);
  if (name !== undefined) payload.name = name;
  const command = str(data.command);
  if (command !== undefined) payload.command = command;
  const toolUseId = record ? (str(record.toolUseID) ?? str(record.parentToolUseID)) : undefined;
  if (toolUseId) payload.toolUseId = toolUseId;
  return payload;
}

/** `attachment` of a hook_* kind: one hook run with its outcome. */
export function hookOfAttachment(kind: string, a: Rec, invalid?: InvalidValue[]): HookPayload {
  const payload: HookPayload = { event: str(a.hookEvent) ?? '', status: kind.slice('hook_'.length) };
  const name = str(a.hookName);
  if (name !== undefined) payload.name = name;
  const command = str(a.command);
  if (command !== undefined) payload.command = command;
  const exitCode = integerValue(a.exitCode, 'attachment.exitCode', invalid);
  if (exitCode !== undefined) payload.exitCode = exitCode;
  const durationMs = countValue(a.durationMs, 'attachment.durationMs', invalid);
  if (durationMs !== undefined) payload.durationMs = durationMs;
  const output = str(a.stdout) ?? textOf(a.content);
  if (output !== undefined) payload.output = output;
  const stderr = str(a.stderr);
  if (stderr) payload.stderr = stderr;
  const toolUseId = str(a.toolUseID);
  if (toolUseId) payload.toolUseId = toolUseId;
  if (FAILED_HOOK_KINDS.has(kind) || (exitCode !== undefined && exitCode !== 0)) payload.isError = true;
  return payload;
}

/** `system` stop_hook_summary: the hooks that ran when a turn (or subagent) stopped, one payload each. */
export function hooksOfStopSummary(r: Rec, invalid?: InvalidValue[]): HookPayload[] {
  const event = str(r.hookEvent) ?? 'Stop';
  const infos = Array.isArray(r.hookInfos) ? r.hookInfos.filter(isRec) : [];
  const errors = Array.isArray(r.hookErrors) ? r.hookErrors : [];
  const base = (): HookPayload => {
    const p: HookPayload = { event, name: event, status: 'summary' };
    if (errors.length > 0) p.errors = errors;
    if (r.preventedContinuation === true) p.preventedContinuation = true;
    const stopReason = str(r.stopReason);
    if (stopReason) p.stopReason = stopReason;
    return p;
  };
  if (infos.length === 0) {
    const p = base();
    if (errors.length > 0) p.isError = true;
    return [p];
  }
  return infos.map((info) => {
    const p = base();
    const command = str(info.command);
    if (command !== undefined) p.command = command;
    const durationMs = countValue(info.durationMs, 'hookInfos.durationMs', invalid);
    if (durationMs !== undefined) p.durationMs = durationMs;
    // Errors are recorded for the whole stop, not per hook; only a lone hook owns them.
    if (errors.length > 0 && infos.length === 1) p.isError = true;
    return p;
  });
}

function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return undefined;
  return JSON.stringify(v);
}
