// Token usage from `event_msg` `token_count` snapshots.
//
// Codex writes a snapshot `{total_token_usage, last_token_usage}` after each model request and
// repeats the latest one at other moments (turn ends, rate-limit updates), so one request is
// one snapshot whose running totals moved. Its own usage is `last_token_usage`, or, when that is
// absent, how far the totals moved. `input_tokens` already includes `cached_input_tokens`, and
// `output_tokens` already includes `reasoning_output_tokens`.
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { isObject } from './records.js';

interface RawUsage {
  input: number;
  cached: number;
  cacheWrite: number | undefined;
  output: number;
  reasoning: number;
  total: number;
}

function rawUsage(v: unknown, field: string, invalid?: InvalidValue[]): RawUsage | undefined {
  if (!isObject(v)) return undefined;
  // A count the contract cannot carry counts as not recorded; `invalid` says which and why.
  const count = (key: string) => countValue(v[key], `${field}.${key}`, invalid);
  const n = (key: string) => count(key) ?? 0;
  const cacheWrite = count('cache_write_input_tokens') ?? count('cache_creation_input_tokens');
  return {
    input: n('input_tokens'),
    cached: v.cached_input_tokens !== undefined ? n('cached_input_tokens') : n('cache_read_input_tokens'),
    cacheWrite,
    output: n('output_tokens'),
    reasoning: n('reasoning_output_tokens'),
    total: n('total_tokens'),
  };
}

const same = (a: RawUsage, b: RawUsage): boolean =>
  a.input === b.input &&
  a.cached === b.cached &&
  (a.cacheWrite ?? 0) === (b.cacheWrite ?? 0) &&
  a.output === b.output &&
  a.reasoning === b.reasoning &&
  a.total === b.total;

const minus = (a: RawUsage, b: RawUsage | undefined): RawUsage => {
  const d = (x: number, y: number | undefined) => Math.max(x - (y ?? 0), 0);
  return {
    input: d(a.input, b?.input),
    cached: d(a.cached, b?.cached),
    cacheWrite: a.cacheWrite === undefined ? undefined : d(a.cacheWrite, b?.cacheWrite),
    output: d(a.output, b?.output),
    reasoning: d(a.reasoning, b?.reasoning),
    total: d(a.total, b?.total),
  };
};

export type Snapshot = { ok: true; usage: Usage } | { ok: false; reason: string };

/** Turns a rollout's token_count snapshots, in file order, into the usage of the requests they close. */
export class SnapshotReader {
  private previous: RawUsage | undefined;

  /** A reader that goes on from where this one is. */
  clone(): SnapshotReader {
    const copy = new SnapshotReader();
    copy.previous = this.previous;
    return copy;
  }

  /** The usage of the request a snapshot closes, or why it closes none. */
  next(info: unknown, invalid?: InvalidValue[]): Snapshot {
    if (!isObject(info)) return { ok: false, reason: 'token_count without usage' };
    const total = rawUsage(info.total_token_usage, 'payload.info.total_token_usage', invalid);
    const last = rawUsage(info.last_token_usage, 'payload.info.last_token_usage', invalid);
    const previous = this.previous;
    if (total) this.previous = total;
    if (total && previous && same(total, previous))
      return { ok: false, reason: 'repeated token_count snapshot' };
    const raw = last ?? (total ? minus(total, previous) : undefined);
    if (!raw) return { ok: false, reason: 'token_count without usage' };
    if (raw.input === 0 && raw.cached === 0 && !raw.cacheWrite && raw.output === 0 && raw.reasoning === 0)
      return { ok: false, reason: 'token_count with zero usage' };
    const usage: Usage = {
      inputTokens: raw.input,
      outputTokens: raw.output,
      cacheReadTokens: Math.min(raw.cached, raw.input),
      reasoningTokens: raw.reasoning,
    };
    if (raw.cacheWrite !== undefined) usage.cacheWriteTokens = raw.cacheWrite;
    return { ok: true, usage };
  }
}
