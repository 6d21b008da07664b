// `shutdown`: stop the server.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';

export const ShutdownArgs = Type.Object({}, { $id: 'ShutdownArgs', additionalProperties: false });
export type ShutdownArgs = Static<typeof ShutdownArgs>;

/** Answered before the process exits, so the caller learns the request was taken rather than
 * guessing it from the connection closing. */
export const ShutdownResult = Type.Object({}, { $id: 'ShutdownResult' });
export type ShutdownResult = Static<typeof ShutdownResult>;

export const ShutdownRequest = request('shutdown', ShutdownArgs, 'ShutdownRequest');
export type ShutdownRequest = Static<typeof ShutdownRequest>;
export const ShutdownResponse = response('shutdown', ShutdownResult, 'ShutdownResponse');
export type ShutdownResponse = Static<typeof ShutdownResponse>;
