// The shape of Claude Code's JSONL records, read defensively: every field may be missing.
import { type InvalidValue, timestampValue } from '../../values.js';

export type Rec = Record<string, unknown>;

export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
export const rec = (v: unknown): Rec | undefined => (isRec(v) ? v : undefined);

/** Records that carry conversation or tooling and become events. */
export const EVENT_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'progress',
  'attachment',
]);

/** Records that name the session. */
export const TITLE_TYPES: ReadonlySet<string> = new Set([
  'summary',
  'custom-title',
  'ai-title',
  'agent-name',
]);

/** Records the CLI keeps for its own state (undo history, queued input, modes): no conversation in them. */
export const BOOKKEEPING_TYPES: ReadonlySet<string> = new Set([
  'file-history-snapshot',
  'file-history-delta',
  'queue-operation',
  'mode',
  'permission-mode',
  'last-prompt',
  'pr-link',
  'worktree-state',
  'cost-state',
  'tag',
  'agent-color',
  'agent-setting',
  'content-replacement',
  'attribution-snapshot',
  'speculation-accept',
]);

export const isKnownType = (t: string): boolean =>
  EVENT_TYPES.has(t) || TITLE_TYPES.has(t) || BOOKKEEPING_TYPES.has(t);

/**
 * Why the first record of a file is of a generation this adapter does not know, or undefined.
 * Claude Code's records are objects tagged by `type`; an unknown tag is fine (new record kinds
 * appear often) when the record carries the session envelope.
 */
export function unknownGeneration(value: unknown): string | undefined {
  if (!isRec(value)) return 'the first record is not a JSON object';
  const type = str(value.type);
  if (type === undefined) return 'the first record has no type tag';
  if (isKnownType(type)) return undefined;
  if ('sessionId' in value || 'uuid' in value || 'parentUuid' in value) return undefined;
  return `the first record's type '${type}' is not one Claude Code writes`;
}

/** ms since the epoch of an ISO timestamp (or a number already in ms), when the contract can carry it. */
export const timestampOf = (v: unknown, invalid?: InvalidValue[]): number | undefined =>
  timestampValue(v, 'timestamp', invalid);

/**
 * Whether a parsed record is one Claude Code wrote: a known type tag and the envelope that
 * goes with it. Other JSONL agents share some tags (`user`, `system`) but not the envelope.
 */
export function looksLikeClaudeRecord(v: unknown): boolean {
  if (!isRec(v)) return false;
  const type = str(v.type);
  if (type === undefined || !isKnownType(type)) return false;
  if (!EVENT_TYPES.has(type)) return true;
  if (v.systemPayload !== undefined) return false;
  if (str(v.uuid) === undefined && str(v.sessionId) === undefined) return false;
  if (type === 'user' || type === 'assistant') {
    const message = rec(v.message);
    return message !== undefined && message.content !== undefined;
  }
  return true;
}

/** The name of a file without its folder and extension. */
export function fileStem(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const name = path.slice(slash + 1);
  const dot = name.indexOf('.');
  return dot === -1 ? name : name.slice(0, dot);
}

/** The lane id a subagent file's name gives (`agent-<id>.jsonl` → `<id>`). */
export function agentIdFromPath(path: string): string {
  const stem = fileStem(path);
  return stem.startsWith('agent-') ? stem.slice('agent-'.length) : stem;
}
