// The time a Copilot CLI events file last recorded: its last event's timestamp.
import { lastLineTime } from '../../activity.js';
import { isObject, toMillis } from '../gemini-cli/records.js';

export const copilotLastRecordAt = (_path: string, data: Uint8Array, whole: boolean): number | undefined =>
  lastLineTime(data, (r) => (isObject(r) ? toMillis(r.timestamp) : undefined), whole);
