// `hello`: the greeting that settles who a connection speaks as.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, InstanceId, Role, Sid, Timestamp } from '../identifiers.js';

/** `sid` goes with `role: "session"` and only with it; the server refuses the other pairings with
 * `invalid_args`, since one object schema cannot state that. A second hello on a connection is a
 * `bad_request`. */
export const HelloArgs = Type.Object(
  {
    role: Role,
    /** The generation the client speaks; another one is refused. */
    protocol_version: Type.Integer({ minimum: 1 }),
    sid: Type.Optional(Sid),
    /** The client's build, for diagnostics only. */
    client_version: Type.Optional(Type.String()),
  },
  { $id: 'HelloArgs', additionalProperties: false },
);
export type HelloArgs = Static<typeof HelloArgs>;

export const HelloResult = Type.Object(
  {
    protocol_version: Type.Integer({ minimum: 1 }),
    instance: InstanceId,
    /** The server's build. */
    version: Type.String(),
    started_at: Timestamp,
    /** The agents whose sessions this server reads, by adapter id. */
    agents: Type.Array(AgentName),
  },
  { $id: 'HelloResult' },
);
export type HelloResult = Static<typeof HelloResult>;

export const HelloRequest = request('hello', HelloArgs, 'HelloRequest');
export type HelloRequest = Static<typeof HelloRequest>;
export const HelloResponse = response('hello', HelloResult, 'HelloResponse');
export type HelloResponse = Static<typeof HelloResponse>;
