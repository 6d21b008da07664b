// A Qwen Code chat file's requests without building events: what the usage reports read of a
// session (each request's time, model and usage, the folder and the title), by translate's rules.
// A request is an assistant record with `usageMetadata`; the folder is the first record's that
// names one; the title is the last `custom_title` that names one. Lines are read and rejected as
// translate reads them, records glued on one line included.
//
// Once the first record is checked and the folder known, a line can matter only if it holds one of
// the two names below. A line holding neither is not parsed: most of a file's bytes are tool output
// and text. JSON could spell a name's letters as `\u00XX` escapes, so a line with such an escape of
// a printable character is parsed all the same.
import type { SourceFile } from '../../adapter.js';
import { bytesOf, indexOfBytes } from '../../bytes.js';
import { type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type { PassRequests } from '../claude-code/requests.js';
import { toMillis } from '../gemini-cli/records.js';
import { gluedRecords, isObject, isQwenRecord, type JsonObject, stringField } from './records.js';
import { qwenUsage } from './usage.js';

const USAGE_METADATA = bytesOf('usageMetadata');
const CUSTOM_TITLE = bytesOf('custom_title');
const UNICODE_ESCAPE = bytesOf('\\u00');
const DIGIT_2 = 0x32;
const DIGIT_7 = 0x37;

/** Whether the line's bytes hold a name a request or a title needs, or an escape that could spell one. */
function mayMatter(data: Uint8Array, span: LineSpan): boolean {
  const line = data.subarray(span.offset, span.offset + span.length);
  if (indexOfBytes(line, USAGE_METADATA) !== -1 || indexOfBytes(line, CUSTOM_TITLE) !== -1) return true;
  for (
    let at = indexOfBytes(line, UNICODE_ESCAPE);
    at !== -1;
    at = indexOfBytes(line, UNICODE_ESCAPE, at + 1)
  ) {
    const next = line[at + UNICODE_ESCAPE.length];
    // \u0020 to \u007f: a printable ASCII character written as an escape.
    if (next !== undefined && next >= DIGIT_2 && next <= DIGIT_7) return true;
  }
  return false;
}

/** The line's records: one, several glued together, or none when translate skips the line. */
function lineRecords(data: Uint8Array, span: LineSpan): unknown[] {
  const parsed = parseJsonLine(data, span);
  if (parsed.ok) return [parsed.value];
  const glued = parsed.reason === 'invalid JSON' ? gluedRecords(data, span) : undefined;
  return glued ? glued.map((g) => g.value) : [];
}

/**
 * The requests of a Qwen Code session's files, or 'unsure' when a file's first record is not a
 * Qwen Code record: the full translation then says what is wrong.
 */
export function qwenRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  const out: PassRequests = { requests: [] };
  let cwd: string | undefined;
  let title: string | undefined;
  const record = (r: JsonObject): void => {
    cwd ??= stringField(r, 'cwd');
    if (r.type === 'assistant' && isObject(r.usageMetadata)) {
      const at = toMillis(r.timestamp);
      const model = stringField(r, 'model');
      const usage = qwenUsage(r.usageMetadata);
      if (at !== undefined && model !== undefined && usage !== undefined)
        out.requests.push({ at, model, usage });
    } else if (r.type === 'system' && stringField(r, 'subtype') === 'custom_title') {
      const payload = isObject(r.systemPayload) ? r.systemPayload : {};
      title = stringField(payload, 'customTitle') ?? title;
    }
  };
  for (const file of files) {
    let sawRecord = false;
    for (const span of splitLines(file.data, 0)) {
      if (sawRecord && cwd !== undefined && !mayMatter(file.data, span)) continue;
      for (const value of lineRecords(file.data, span)) {
        if (!sawRecord) {
          sawRecord = true;
          if (!isQwenRecord(value)) return 'unsure';
        }
        if (isQwenRecord(value)) record(value);
      }
    }
  }
  if (cwd !== undefined) out.cwd = cwd;
  if (title !== undefined) out.title = title;
  return out;
}
