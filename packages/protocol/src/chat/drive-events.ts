// cairn's: a driven session's event log as a browser follows it on a team's server, at
// `/drive/events?session=<ref>&after=<seq>`. Every server process on the database answers for every
// session, so a browser whose process goes away opens the feed on another from the last seq it got.
import { type Static, Type } from '@sinclair/typebox';
import { frame } from './fields.js';

/** The path of the feed, beside `/chat`. */
export const DRIVE_EVENTS_PATH = '/drive/events';

/** One event of the log: its place (1, 2, … with no gap), the agent protocol's name, and its payload. */
export const DriveEventFrame = frame(
  'drive_event',
  {
    seq: Type.Integer({ minimum: 1 }),
    eventName: Type.String(),
    payload: Type.Unknown(),
  },
  'DriveEventFrame',
);
export type DriveEventFrame = Static<typeof DriveEventFrame>;
