// How an op's own arguments and results travel: flat beside the envelope fields, as the seed's
// fixtures have them (`{ request_id, op, sid, … }` and `{ ok: true, request_id, path, … }`).
import { type Static, type TLiteral, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { ErrorBody } from './errors.js';
import { RequestId } from './identifiers.js';

/** The generation of this contract. Within one, only optional fields and whole new ops are added. */
export const PROTOCOL_VERSION = 1;

const REQUEST_FIELDS = ['request_id', 'op'] as const;
const RESPONSE_FIELDS = ['ok', 'request_id'] as const;

function assertNoClash(what: string, fields: readonly string[], properties: TProperties): void {
  for (const name of fields) {
    if (name in properties) throw new Error(`${what} declares envelope field '${name}'`);
  }
}

/** An op's request: its arguments beside `request_id` and `op`. The request is as closed as its
 * arguments: where they refuse unknown fields, a misspelt argument (`since` for `since_at`) is an error
 * naming it rather than a silently wider read; where the contract leaves an op's arguments open, so
 * does the request. */
export function request<Op extends string, P extends TProperties>(op: Op, args: TObject<P>, $id: string) {
  assertNoClash(`${op} args`, REQUEST_FIELDS, args.properties);
  const envelope = { request_id: RequestId, op: Type.Literal(op) as TLiteral<Op> };
  const closed = args.additionalProperties === false;
  return Type.Object(
    { ...envelope, ...args.properties },
    closed ? { $id, additionalProperties: false } : { $id },
  );
}

/** An op's successful reply: its result beside `ok: true` and the request's id. Open to fields a
 * newer server adds. */
export function response<P extends TProperties>(op: string, result: TObject<P>, $id: string) {
  assertNoClash(`${op} result`, RESPONSE_FIELDS, result.properties);
  const envelope = { ok: Type.Literal(true), request_id: RequestId };
  return Type.Object({ ...envelope, ...result.properties }, { $id });
}

/** A failed reply. `request_id` is absent only when the request could not be read far enough to
 * have one. */
export const ErrorResponse = Type.Object(
  {
    ok: Type.Literal(false),
    request_id: Type.Optional(RequestId),
    error: ErrorBody,
  },
  { $id: 'ErrorResponse' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;
