// `ping`: is the server up, and how is it doing.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { InstanceId, Timestamp } from '../identifiers.js';

export const PingArgs = Type.Object({}, { $id: 'PingArgs', additionalProperties: false });
export type PingArgs = Static<typeof PingArgs>;

/** The state of the session index, which a first start or a schema change rebuilds from the agents'
 * files; a client shows progress while it is `building`. */
export const IndexState = Type.Object(
  {
    state: Type.Union([Type.Literal('ready'), Type.Literal('building')]),
    sessions: Type.Integer({ minimum: 0 }),
    /** While building: files read so far, out of `total`. */
    done: Type.Optional(Type.Integer({ minimum: 0 })),
    total: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: 'IndexState' },
);
export type IndexState = Static<typeof IndexState>;

export const PingResult = Type.Object(
  {
    instance: InstanceId,
    version: Type.String(),
    pid: Type.Integer({ minimum: 1 }),
    started_at: Timestamp,
    /** Connections open right now. */
    clients: Type.Integer({ minimum: 0 }),
    index: Type.Optional(IndexState),
  },
  { $id: 'PingResult' },
);
export type PingResult = Static<typeof PingResult>;

export const PingRequest = request('ping', PingArgs, 'PingRequest');
export type PingRequest = Static<typeof PingRequest>;
export const PingResponse = response('ping', PingResult, 'PingResponse');
export type PingResponse = Static<typeof PingResponse>;
