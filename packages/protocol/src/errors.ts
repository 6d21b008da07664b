// The closed set of codes a failed reply may carry, and the error body itself.
import { type Static, Type } from '@sinclair/typebox';

/** Codes any reply may carry whatever its op, because they are decided before an op is known or
 * after it ran: they are not repeated in the op table. */
export const CONNECTION_ERROR_CODES = [
  /** Not a request at all: not JSON, not an object, no `op`, no `request_id`, or a second `hello`. */
  'bad_request',
  /** `op` names nothing in the op table. */
  'unknown_op',
  /** The arguments were right and the call allowed, and the server failed anyway. */
  'internal_error',
] as const;

/** Codes that follow from an op's own attributes or subject; each op lists the ones it can answer. */
export const OP_ERROR_CODES = [
  /** The arguments failed the op's request schema, or a combination the schema cannot judge (two
   * lower bounds at once). `field` names the offending field. */
  'invalid_args',
  /** The op needs an identity and the connection has not said `hello` yet. */
  'hello_required',
  /** The connection's role is not among the op's `roles`, or the topic's. */
  'forbidden',
  /** The session, subagent, record or preset the arguments name does not exist. */
  'not_found',
  /** The topic name is not one this protocol defines. */
  'topic_unknown',
  /** The op is in the table and this server does not do what it asks, or not for this subject (a
   * session it does not drive, a feature it does not have yet). Nothing was changed. */
  'unsupported',
] as const;

export const ERROR_CODES = [...CONNECTION_ERROR_CODES, ...OP_ERROR_CODES] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorCodeSchema = Type.Union(
  ERROR_CODES.map((code) => Type.Literal(code)),
  { $id: 'ErrorCode' },
);

export const ErrorBody = Type.Object(
  {
    code: ErrorCodeSchema,
    /** For people. Clients branch on `code`, never on this text. */
    message: Type.String(),
    /** JSON pointer of the first field at fault, relative to the request (`/since_at`, `/types/2`),
     * when one field is to blame. */
    field: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody' },
);
export type ErrorBody = Static<typeof ErrorBody>;
