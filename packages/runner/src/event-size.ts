// An event too large to carry is cut before it is journaled, so the live frame and every later
// backfill carry the same, bounded thing. The longest strings lose their ends (where a huge update
// keeps its bulk: a message's text, a tool's output) and the payload says it was cut and how large
// it was; a payload that is large for another reason (a huge array of small values) keeps only a
// preview of its JSON.
import { AGENT_EVENT_MAX_BYTES, EVENT_CUT_MARKER, type EventCut } from '@cairn/protocol';

/** Room for the marker and the notes in the cut strings, so the result lands under the limit. */
const SLACK = 64 * 1024;
const PREVIEW_CHARS = 64 * 1024;

/** The payload within `limit` bytes of JSON, and its original size when it had to be cut. */
export function fitEvent(
  payload: Record<string, unknown>,
  limit = AGENT_EVENT_MAX_BYTES,
): { payload: Record<string, unknown>; cutFrom?: number } {
  const text = JSON.stringify(payload);
  // Every JSON character is at least one byte, and at most three per UTF-16 unit.
  if (text.length * 3 <= limit) return { payload };
  const size = Buffer.byteLength(text);
  if (size <= limit) return { payload };
  const marker: EventCut = { originalBytes: size, limitBytes: limit };
  // Characters to remove: first at this payload's average bytes per character, then, if that was
  // not enough, one more for every byte still over (a character is at least a byte).
  let excess = Math.ceil(((size - limit + SLACK) * text.length) / size);
  for (let attempt = 0; attempt < 3; attempt++) {
    const cap = stringCap(payload, excess);
    if (cap === undefined) break;
    const cut = { ...(capStrings(payload, cap) as Record<string, unknown>), [EVENT_CUT_MARKER]: marker };
    const cutSize = Buffer.byteLength(JSON.stringify(cut));
    if (cutSize <= limit) return { payload: cut, cutFrom: size };
    excess += cutSize - limit + SLACK;
  }
  const preview: Record<string, unknown> = {
    [EVENT_CUT_MARKER]: marker,
    preview: text.slice(0, PREVIEW_CHARS),
  };
  if (typeof payload.sessionUpdate === 'string') preview.sessionUpdate = payload.sessionUpdate;
  return { payload: preview, cutFrom: size };
}

/**
 * The one length every string is cut to so that at least `excess` characters go, cutting the
 * longest first; undefined when cutting every string is not enough.
 */
function stringCap(value: unknown, excess: number): number | undefined {
  const lengths: number[] = [];
  collectLengths(value, lengths);
  lengths.sort((a, b) => b - a);
  let sum = 0;
  for (let k = 0; k < lengths.length; k++) {
    sum += lengths[k]!;
    const next = lengths[k + 1] ?? 0;
    const cap = Math.floor((sum - excess) / (k + 1));
    if (cap >= next) return cap;
  }
  return undefined;
}

function collectLengths(value: unknown, into: number[]): void {
  if (typeof value === 'string') into.push(value.length);
  else if (Array.isArray(value)) for (const v of value) collectLengths(v, into);
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) collectLengths(v, into);
}

function capStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= cap) return value;
    // Never end on the first half of a surrogate pair.
    const end = cap > 0 && /[\uD800-\uDBFF]/.test(value[cap - 1]!) ? cap - 1 : cap;
    return `${value.slice(0, end)}…⟨cut: ${value.length - end} more characters⟩`;
  }
  if (Array.isArray(value)) return value.map((v) => capStrings(v, cap));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: capStrings(v, cap),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
