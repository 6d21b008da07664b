// Frames to text and back, and the check a frame passes before it is sent. Decoding ignores keys
// the table does not name (they stay on the decoded object, untouched and untyped), and fails a
// frame whose type is unknown or whose named field is missing or of the wrong form, with an error
// that names the frame and the field. Fields the far side reads as integers take any finite number
// on the way in, as the contract's guards do; the whole-number rule is held on the way out.

import { integerViolation, trueOrAbsentViolation } from './field-rules.js';
import {
  checkFields,
  type FieldGuards,
  type GuardFault,
  isPlainObject,
  jsonTypeOf,
  ownValue,
  shown,
} from './guards.js';
import { AGENT_FRAME_TYPES, type AgentFrameType, agentFrameFields, isAgentFrameType } from './shapes.js';
import type { AgentFailureReply, AgentFrame } from './types.js';

/** Why a text is not a frame of the wire. The only error decoding throws, whatever the input. */
export class AgentFrameDecodeError extends Error {
  override readonly name = 'AgentFrameDecodeError';
  /** The frame's `t` when it had a string one, else null. */
  readonly frameType: string | null;
  /** The field at fault (`cwd`, `images[0].mimeType`, `t`), or null when the text is not an object. */
  readonly field: string | null;

  constructor(message: string, frameType: string | null, field: string | null) {
    super(message);
    this.frameType = frameType;
    this.field = field;
  }
}

/**
 * Decodes one frame of a channel whose frames are objects discriminated on `t`: the text must be
 * JSON, an object, with a string `t` among `discriminators`, and then pass `guard`, which names the
 * first field at fault (or returns null). `channel` names the wire in messages.
 */
export function decodeChannelFrame<F>(
  text: string,
  discriminators: ReadonlySet<string>,
  guard: (frame: Record<string, unknown>, type: string) => GuardFault | null,
  channel = 'agent',
): F {
  if (typeof text !== 'string') {
    throw new AgentFrameDecodeError(`${channel} frame must be text, got ${jsonTypeOf(text)}`, null, null);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new AgentFrameDecodeError(`${channel} frame is not JSON: ${why}`, null, null);
  }
  if (!isPlainObject(parsed)) {
    throw new AgentFrameDecodeError(
      `${channel} frame must be a JSON object, got ${jsonTypeOf(parsed)}`,
      null,
      null,
    );
  }
  const type = ownValue(parsed, 't');
  if (type === undefined) throw new AgentFrameDecodeError(`${channel} frame has no t`, null, 't');
  if (typeof type !== 'string') {
    throw new AgentFrameDecodeError(
      `${channel} frame's t must be a string, got ${jsonTypeOf(type)}`,
      null,
      't',
    );
  }
  if (!discriminators.has(type)) {
    throw new AgentFrameDecodeError(`unknown ${channel} frame type ${shown(type)}`, type, 't');
  }
  const fault = guard(parsed, type);
  if (fault !== null) {
    const field = fault.path.startsWith('.') ? fault.path.slice(1) : fault.path;
    throw new AgentFrameDecodeError(`${type}${fault.path} ${fault.problem}`, type, field);
  }
  return parsed as F;
}

const DISCRIMINATORS: ReadonlySet<string> = new Set(AGENT_FRAME_TYPES);

const FIELDS = new Map<string, FieldGuards>(AGENT_FRAME_TYPES.map((type) => [type, agentFrameFields(type)]));

function agentFrameFault(frame: Record<string, unknown>, type: string): GuardFault | null {
  return checkFields(frame, FIELDS.get(type)!);
}

export function encodeAgentFrame(frame: AgentFrame): string {
  return JSON.stringify(frame);
}

/** The frame `text` holds; throws {@link AgentFrameDecodeError} when it holds none. */
export function decodeAgentFrame(text: string): AgentFrame {
  return decodeChannelFrame<AgentFrame>(text, DISCRIMINATORS, agentFrameFault);
}

export type AgentFrameDecoding =
  | { readonly ok: true; readonly frame: AgentFrame }
  | { readonly ok: false; readonly error: AgentFrameDecodeError };

/** {@link decodeAgentFrame} with the failure as a value. */
export function tryDecodeAgentFrame(text: string): AgentFrameDecoding {
  try {
    return { ok: true, frame: decodeAgentFrame(text) };
  } catch (error) {
    if (error instanceof AgentFrameDecodeError) return { ok: false, error };
    throw error;
  }
}

/**
 * Why `frame` must not be sent, or null when it may go. The frame is checked as the peer will read
 * it, by a round trip through the encoder and this decoder, after two rules checked on the object
 * itself: whole numbers in the fields the far side reads as integers (which the decoder does not
 * hold, and which only here can name a NaN: the round trip would see it as null; a null there is
 * refused too) and true-or-absent flags. Total: anything wrong, an unserializable frame included,
 * is a message.
 */
export function outboundAgentFrameRejection(frame: AgentFrame): string | null {
  try {
    const value: unknown = frame;
    if (!isPlainObject(value)) return `an agent frame must be an object, got ${jsonTypeOf(value)}`;
    const type = ownValue(value, 't');
    if (isAgentFrameType(type)) {
      const violation = integerViolation(value, type) ?? trueOrAbsentViolation(value, type);
      if (violation !== null) return violation;
    }
    // A serializer's own error (a cycle, a bigint) is the message as it stands.
    const text: string | undefined = JSON.stringify(value);
    if (typeof text !== 'string') {
      return `${typeof type === 'string' ? type : 'the agent frame'} serializes to nothing`;
    }
    decodeAgentFrame(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The reply frame types that can stand in for a malformed reply, and what each becomes. */
const FAILURE_REPLY_TYPES = {
  agent_opened: 'agent_opened',
  agent_native_sessions: 'agent_native_sessions',
  agent_verified: 'agent_verified',
  agent_authenticated: 'agent_authenticated',
  agent_installed: 'agent_installed',
  agent_steered: 'agent_steered',
  agent_config_option_set: 'agent_config_option_set',
  agent_backfill_done: 'agent_backfill_done',
  // Not an answer itself, but a lost batch leaves the backfill incomplete, so it fails as its
  // terminator would.
  agent_backfill_events: 'agent_backfill_done',
} as const satisfies Partial<Record<AgentFrameType, AgentFailureReply['t']>>;

/**
 * A well-formed failure to send instead of a reply that could not be sent, so the requester hears
 * why instead of waiting out its timeout; null when the frame answers nothing, or when its `id` is
 * what is malformed (then there is no one to tell).
 */
export function outboundFailureReply(
  frame: { readonly t: string; readonly id?: unknown },
  reason: string,
): AgentFailureReply | null {
  const value: unknown = frame;
  if (!isPlainObject(value)) return null;
  const type = ownValue(value, 't');
  const id = ownValue(value, 'id');
  if (typeof type !== 'string' || typeof id !== 'string' || id.length === 0) return null;
  if (!Object.hasOwn(FAILURE_REPLY_TYPES, type)) return null;
  const reply = FAILURE_REPLY_TYPES[type as keyof typeof FAILURE_REPLY_TYPES];
  const error = `the workstation client produced a malformed ${type}: ${reason}`;
  if (reply === 'agent_backfill_done') return { t: reply, id, ok: false, count: 0, error };
  return { t: reply, id, ok: false, error };
}
