// Checking a frame of the browser wire, at either end: the client checks what the server sends and
// the server what the client sends. A frame is matched against the one member its `type` names, so
// the error is that member's, naming its first bad field; a `type` no member has is the fault itself.
import type { TObject } from '@sinclair/typebox';
import { type Validation, validate } from '../validate.js';
import { CLIENT_MESSAGE_MEMBERS, type ClientMessage } from './client-messages.js';
import { SERVER_EVENT_MEMBERS, type ServerEvent } from './server-events.js';

type Member = TObject & { properties: { type: { const: string } } };

function byType(members: readonly Member[]): ReadonlyMap<string, Member> {
  return new Map(members.map((member) => [member.properties.type.const, member]));
}

const CLIENT_MESSAGES = byType(CLIENT_MESSAGE_MEMBERS);
const SERVER_EVENTS = byType(SERVER_EVENT_MEMBERS);

function checkFrame<T>(members: ReadonlyMap<string, Member>, what: string, value: unknown): Validation<T> {
  const fail = (field: string, problem: string): Validation<T> => ({
    ok: false,
    error: { code: 'invalid_args', message: `${field === '' ? 'value' : field}: ${problem}`, field },
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('', `${what} is a JSON object`);
  }
  const type = (value as { type?: unknown }).type;
  if (type === undefined) return fail('/type', 'Expected required property');
  if (typeof type !== 'string') return fail('/type', 'Expected string');
  const member = Object.hasOwn(value, 'type') ? members.get(type) : undefined;
  if (member === undefined) return fail('/type', `no ${what} has the type ${JSON.stringify(type)}`);
  return validate(member, value) as Validation<T>;
}

/** Checks a frame the browser sent. */
export function validateClientMessage(value: unknown): Validation<ClientMessage> {
  return checkFrame(CLIENT_MESSAGES, 'client message', value);
}

/** Checks a frame the server sent. */
export function validateServerEvent(value: unknown): Validation<ServerEvent> {
  return checkFrame(SERVER_EVENTS, 'server event', value);
}
