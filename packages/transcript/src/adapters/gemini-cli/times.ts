// The time a Gemini CLI session file last recorded: its last message's, or the last metadata
// update's. A legacy document is one record, read only when it is whole.
import { lastLineTime } from '../../activity.js';
import { parseBytes } from './legacy.js';
import { isJsonlFile } from './paths.js';
import { isMetadataRecord, isObject, type JsonObject, toMillis } from './records.js';

const recordTime = (r: unknown): number | undefined => {
  if (!isObject(r)) return undefined;
  const set = isObject(r.$set) ? r.$set : undefined;
  return (
    toMillis(r.timestamp) ??
    toMillis(set?.lastUpdated) ??
    (isMetadataRecord(r) ? toMillis(r.lastUpdated) : undefined)
  );
};

function documentTime(doc: JsonObject): number | undefined {
  const messages = Array.isArray(doc.messages) ? doc.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const t = isObject(m) ? toMillis(m.timestamp) : undefined;
    if (t !== undefined) return Math.floor(t);
  }
  const updated = toMillis(doc.lastUpdated);
  return updated === undefined ? undefined : Math.floor(updated);
}

export function geminiLastRecordAt(path: string, data: Uint8Array, whole: boolean): number | undefined {
  if (path.endsWith('.jsonl') || (!path.endsWith('.json') && whole && isJsonlFile(path, data)))
    return lastLineTime(data, recordTime, whole);
  if (!whole) return undefined;
  const parsed = parseBytes(data);
  return parsed.ok && isObject(parsed.value) ? documentTime(parsed.value) : undefined;
}
