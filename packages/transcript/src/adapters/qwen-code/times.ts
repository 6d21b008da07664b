// The time a Qwen Code session file last recorded: its last record's timestamp.
import { lastLineTime } from '../../activity.js';
import { isObject, toMillis } from '../gemini-cli/records.js';

export const qwenLastRecordAt = (_path: string, data: Uint8Array, whole: boolean): number | undefined =>
  lastLineTime(data, (r) => (isObject(r) ? toMillis(r.timestamp) : undefined), whole);
