// The time a pi session file last recorded: its last entry's timestamp.
import { lastLineTime } from '../../activity.js';
import { entryTime, isObject } from './records.js';

export const piLastRecordAt = (_path: string, data: Uint8Array, whole: boolean): number | undefined =>
  lastLineTime(data, (r) => (isObject(r) ? entryTime(r) : undefined), whole);
