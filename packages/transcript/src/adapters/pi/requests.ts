// A pi session file's requests without building events: what the usage reports read of a session
// (each request's time, model and usage, the folder and the title), by translate's rules. Every
// assistant message is a request; the folder is the first header's; the title is the latest
// session_info name (an empty one clears it). An entry written twice byte for byte counts once.
//
// Most entries have an id, and translate hashes each such line to tell a repeat from another entry
// with the same id. Here a line is hashed only once its id comes again, which is rare.
import type { SourceFile } from '../../adapter.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import type { PassRequests } from '../claude-code/requests.js';
import { ENTRY_TYPES, entryTime, isObject, isPiHeader, type JsonObject, stringField } from './records.js';
import { lineHash } from './translate.js';
import { piUsage } from './usage.js';

/** Where an id was first written: a later line is a repeat when it has the same length and hash. */
interface FirstWrite {
  data: Uint8Array;
  offset: number;
  length: number;
  hash?: number;
}

/**
 * The requests of a pi session's files, or 'unsure' when a file does not start with a pi session
 * header: the full translation then says what is wrong.
 */
export function piRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  const out: PassRequests = { requests: [] };
  const written = new Map<string, FirstWrite>();
  let cwd: string | undefined;
  let title: string | undefined;
  /** Whether the entry repeats the first write of its id byte for byte (translate skips it). */
  const repeats = (r: JsonObject, data: Uint8Array, offset: number, length: number): boolean => {
    const id = stringField(r, 'id');
    if (id === undefined) return false;
    const first = written.get(id);
    if (first === undefined) {
      written.set(id, { data, offset, length });
      return false;
    }
    if (first.length !== length) return false;
    first.hash ??= lineHash(first.data, first.offset, first.length);
    return first.hash === lineHash(data, offset, length);
  };
  for (const file of files) {
    let sawRecord = false;
    for (const span of splitLines(file.data, 0)) {
      const parsed = parseJsonLine(file.data, span);
      if (!parsed.ok) continue;
      const r = parsed.value;
      if (!sawRecord) {
        sawRecord = true;
        if (!isPiHeader(r)) return 'unsure';
      }
      if (!isObject(r) || typeof r.type !== 'string') continue;
      if (repeats(r, file.data, span.offset, span.length)) continue;
      if (r.type === 'session') cwd ??= stringField(r, 'cwd');
      else if (!ENTRY_TYPES.has(r.type)) continue;
      else if (r.type === 'message') {
        const m = isObject(r.message) ? r.message : undefined;
        if (m === undefined || m.role !== 'assistant') continue;
        const at = entryTime(r);
        const model = stringField(m, 'model');
        const usage = piUsage(m.usage);
        if (at !== undefined && model !== undefined && usage !== undefined)
          out.requests.push({ at, model, usage });
      } else if (r.type === 'session_info') title = stringField(r, 'name')?.trim() || undefined;
    }
  }
  if (cwd !== undefined) out.cwd = cwd;
  if (title !== undefined) out.title = title;
  return out;
}
