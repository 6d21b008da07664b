// Every agent frame's shape as data: per frame type, the fields it cannot be decoded without and
// the fields it may carry. This table is the one statement of the wire's fields: the decoder, the
// outbound check, the derived integer and true-or-absent tables and the contract tests all read it.
import {
  anything,
  arrayOf,
  boolean,
  type FieldGuards,
  type Guard,
  type Infer,
  type InferFields,
  int32,
  integer,
  isPlainObject,
  nullable,
  objectOf,
  oneOf,
  ownValue,
  positiveNumber,
  record,
  shown,
  string,
  stringArray,
  stringRecord,
  trueOnly,
  typeFault,
  union,
} from './guards.js';

const nullableString = nullable(string);

/** One agent a workstation can run, as listed in `agent_hello.bridges`. */
export const BRIDGE_INFO_GUARD = objectOf(
  'a bridge',
  { key: string, name: string },
  {
    cliInstalled: boolean,
    adapterInstalled: trueOnly,
    version: nullableString,
    supportsSteering: trueOnly,
    supportsImageInput: trueOnly,
  },
);

/** One way an agent says it can be signed in to. */
export const AUTH_METHOD_INFO_GUARD = objectOf(
  'an auth method',
  { id: string, name: string },
  { description: nullableString, type: nullableString },
);

/** An image inside a prompt or a steer. The discriminator is checked: anything but `image` would be
 * another content kind passed off under this name, and half an image is refused, not forwarded. */
export const IMAGE_BLOCK_GUARD = objectOf(
  'an image block',
  { type: oneOf(['image']), data: string, mimeType: string },
  { uri: nullableString },
);

/** The agent's own name for itself. Only `name` is required, although the agent protocol also
 * requires `version`: refusing a display string would fail the whole `agent_opened` reply. */
export const AGENT_INFO_GUARD = objectOf(
  'agent info',
  { name: string },
  { title: nullableString, version: nullableString },
);

export const SELECT_OPTION_GUARD = objectOf(
  'a select option',
  { value: string, name: string },
  { description: nullableString },
);

export const SELECT_GROUP_GUARD = objectOf('a group of select options', {
  group: string,
  name: string,
  options: arrayOf(SELECT_OPTION_GUARD),
});

const SELECT_OPTIONS = arrayOf(SELECT_OPTION_GUARD);
const SELECT_GROUPS = arrayOf(SELECT_GROUP_GUARD);

/** A select option's choices: all plain options or all groups, never a mix. */
export const SELECT_CHOICES_GUARD = union<Infer<typeof SELECT_OPTIONS> | Infer<typeof SELECT_GROUPS>>(
  'an array of select options or of groups',
  ['array'],
  (value) => {
    if (!Array.isArray(value)) return typeFault('an array of select options or of groups', value);
    if (SELECT_OPTIONS.check(value) === null || SELECT_GROUPS.check(value) === null) return null;
    // Report against the form the first entry takes, which is the one the sender meant.
    const grouped = isPlainObject(value[0]) && ownValue(value[0], 'group') !== undefined;
    return (grouped ? SELECT_GROUPS : SELECT_OPTIONS).check(value);
  },
);

const configOptionCommon = { description: nullableString, category: nullableString };

export const SELECT_CONFIG_OPTION_GUARD = objectOf(
  'a select config option',
  { id: string, name: string, type: oneOf(['select']), currentValue: string, options: SELECT_CHOICES_GUARD },
  configOptionCommon,
);

export const BOOLEAN_CONFIG_OPTION_GUARD = objectOf(
  'a boolean config option',
  { id: string, name: string, type: oneOf(['boolean']), currentValue: boolean },
  configOptionCommon,
);

/** A session config option. `currentValue`'s type follows `type`: a select's is the id of one of its
 * options, a boolean's is the toggle; a mismatch is refused, since no reader could show it. */
export const SESSION_CONFIG_OPTION_GUARD = union<
  Infer<typeof SELECT_CONFIG_OPTION_GUARD> | Infer<typeof BOOLEAN_CONFIG_OPTION_GUARD>
>('a config option', ['object'], (value) => {
  if (!isPlainObject(value)) return typeFault('a config option', value);
  const type = ownValue(value, 'type');
  if (type === 'select') return SELECT_CONFIG_OPTION_GUARD.check(value);
  if (type === 'boolean') return BOOLEAN_CONFIG_OPTION_GUARD.check(value);
  for (const key of ['id', 'name'] as const) {
    const fault = string.check(ownValue(value, key));
    if (ownValue(value, key) === undefined) return { path: `.${key}`, problem: 'is required' };
    if (fault !== null) return { path: `.${key}`, problem: fault.problem };
  }
  if (type === undefined) return { path: '.type', problem: 'is required' };
  return { path: '.type', problem: `must be "select" or "boolean", got ${shown(type)}` };
});

/** The value `agent_set_config_option` sets: a select option's id or a boolean toggle. */
export const CONFIG_OPTION_VALUE_GUARD = union<string | boolean>(
  'a string or a boolean',
  ['string', 'boolean'],
  (value) =>
    typeof value === 'string' || typeof value === 'boolean'
      ? null
      : typeFault('a string or a boolean', value),
);

/** One entry of the journal inventory (`agent_resume_offer`, `heartbeat.sessions`). */
export const AGENT_RESUME_SESSION_GUARD = objectOf('a journal inventory entry', {
  sessionRef: string,
  journalMaxSeq: integer,
  agentAlive: boolean,
});

/** A session the agent itself lists (`session/list`). */
export const NATIVE_SESSION_GUARD = objectOf('a native session', {
  nativeSessionId: string,
  title: string,
  updatedAtEpochMs: integer,
  cwd: string,
});

/** One slash command the agent offers. */
export const AVAILABLE_COMMAND_GUARD = objectOf(
  'an available command',
  { name: string, description: string },
  { inputHint: nullableString },
);

/** An event carried by `agent_backfill_events`. */
export const AGENT_BACKFILL_EVENT_GUARD = objectOf('an event', { eventName: string, payload: record });

/** What `agent_installed` says when the pinned adapter version could not be had. */
export const PINNED_VERSION_UNAVAILABLE_GUARD = objectOf('a pinned-version report', {
  pinned: string,
  installedInstead: string,
});

/** How a steer was delivered. Only the two outcomes a workstation produces: a third means a peer
 * invented a disposition for a message already on the server's timeline. */
export const STEER_OUTCOME_GUARD = oneOf(['injected', 'promptRequired']);

/** A probe's time budget in milliseconds, or none given (use the local default). A malformed budget
 * is refused: it would make the probe time out at once or never. Too large is clamped, not refused. */
export const PROBE_TIMEOUT_MS_GUARD = nullable(positiveNumber);

/** A JSON-RPC error code, or none (the refusal was not a JSON-RPC one). */
export const JSON_RPC_ERROR_CODE_GUARD = nullable(int32);

/** A whole method table or nothing: `[]` means "the agent named none", absent or null "not known". */
const AUTH_METHODS = nullable(arrayOf(AUTH_METHOD_INFO_GUARD));
const CONFIG_OPTIONS = nullable(arrayOf(SESSION_CONFIG_OPTION_GUARD));
const AVAILABLE_COMMANDS = nullable(arrayOf(AVAILABLE_COMMAND_GUARD));
const IMAGE_BLOCKS = arrayOf(IMAGE_BLOCK_GUARD);
const RESUME_INVENTORY = arrayOf(AGENT_RESUME_SESSION_GUARD);

/**
 * Whether `value` may stand as a config option snapshot: a whole list of well-formed options, or
 * absent or null ("not known"). `[]` is a snapshot (the agent has none); a list with one malformed
 * entry is not, since half a snapshot would offer settings that do nothing.
 */
export function isNullableSessionConfigOptionArray(
  value: unknown,
): value is Infer<typeof CONFIG_OPTIONS> | undefined {
  return value === undefined || CONFIG_OPTIONS.check(value) === null;
}

export interface AgentFrameShape {
  readonly required: Readonly<Record<string, Guard<unknown>>>;
  readonly optional?: Readonly<Record<string, Guard<unknown>>>;
}

export const AGENT_FRAME_SHAPES = {
  agent_hello: { required: { ticket: string }, optional: { bridges: arrayOf(BRIDGE_INFO_GUARD) } },
  agent_ready: { required: { generation: string, agentWire: integer } },
  agent_resume_offer: { required: { sessions: RESUME_INVENTORY } },
  heartbeat: {
    required: { seq: integer, sentAtEpochMs: integer },
    optional: { sessions: RESUME_INVENTORY },
  },
  heartbeat_ack: { required: { seq: integer } },
  agent_open: {
    required: {
      id: string,
      sessionRef: string,
      agentKey: string,
      bridge: string,
      cwd: string,
      shell: string,
    },
    optional: {
      env: stringRecord,
      pathPrepend: stringArray,
      agentEnv: stringRecord,
      command: nullableString,
      args: stringArray,
      nativeSessionId: nullableString,
      resumeFromSeq: integer,
      backfill: boolean,
    },
  },
  agent_opened: {
    required: { id: string, ok: boolean },
    optional: {
      nativeSessionId: nullableString,
      error: nullableString,
      supportsSteering: trueOnly,
      // Open strings: the sender already dropped the timings it does not know, and a closed list
      // here would make a future timing fail the frame instead of being ignored.
      steeringTimings: stringArray,
      reloaded: trueOnly,
      agentInfo: AGENT_INFO_GUARD,
      supportsImageInput: trueOnly,
      configOptions: CONFIG_OPTIONS,
      authMethods: AUTH_METHODS,
      errorCode: JSON_RPC_ERROR_CODE_GUARD,
    },
  },
  agent_prompt: { required: { sessionRef: string, text: string }, optional: { images: IMAGE_BLOCKS } },
  agent_answer: { required: { sessionRef: string, requestId: string, outcome: string } },
  agent_interrupt: { required: { sessionRef: string } },
  agent_close: { required: { sessionRef: string } },
  agent_event: { required: { sessionRef: string, seq: integer, eventName: string, payload: record } },
  agent_turn_done: {
    required: { sessionRef: string, seq: integer, status: string },
    optional: {
      stopReason: string,
      nativeSessionId: nullableString,
      error: nullableString,
      authMethods: AUTH_METHODS,
      errorCode: JSON_RPC_ERROR_CODE_GUARD,
    },
  },
  agent_event_ack: { required: { sessionRef: string, throughSeq: integer } },
  agent_session_lost: { required: { sessionRef: string, action: string } },
  // `query` only has to be present: a malformed query is answered by the session manager with its
  // own `ok: false`, which it could not do if the transport dropped the frame.
  agent_list_native: { required: { id: string, bridge: string, query: anything } },
  agent_native_sessions: {
    required: { id: string, ok: boolean },
    optional: { sessions: arrayOf(NATIVE_SESSION_GUARD), error: nullableString },
  },
  agent_verify: {
    required: { id: string, bridge: string, query: anything },
    optional: { timeoutMs: PROBE_TIMEOUT_MS_GUARD },
  },
  agent_authenticate: { required: { id: string, bridge: string, methodId: string, query: anything } },
  agent_verified: {
    required: { id: string, ok: boolean },
    optional: {
      authMethods: AUTH_METHODS,
      // Absent means "could not tell"; there is no `false`, so "unverified" never reads as "signed out".
      authenticated: trueOnly,
      sessionError: nullableString,
      error: nullableString,
      availableCommands: AVAILABLE_COMMANDS,
      configOptions: CONFIG_OPTIONS,
    },
  },
  agent_authenticated: {
    required: { id: string, ok: boolean },
    // Absent `pending` means this reply is the final word on the login.
    optional: { pending: trueOnly, error: nullableString },
  },
  agent_auth_url: { required: { id: string, elicitationId: string, url: string } },
  agent_auth_url_done: { required: { id: string, elicitationId: string } },
  agent_install: { required: { id: string, bridge: string } },
  agent_installed: {
    required: { id: string, ok: boolean },
    optional: {
      // Absent when the adapter did not get onto the machine; there is no `false`.
      adapterInstalled: trueOnly,
      alreadyInstalled: boolean,
      unsupported: boolean,
      error: nullableString,
      pinnedVersionUnavailable: PINNED_VERSION_UNAVAILABLE_GUARD,
    },
  },
  agent_steer: {
    required: { id: string, sessionRef: string, text: string },
    optional: { images: IMAGE_BLOCKS, priority: string },
  },
  agent_steered: {
    required: { id: string, ok: boolean },
    optional: { outcome: STEER_OUTCOME_GUARD, error: nullableString },
  },
  agent_backfill_events: { required: { id: string, events: arrayOf(AGENT_BACKFILL_EVENT_GUARD) } },
  agent_backfill_done: {
    required: { id: string, ok: boolean, count: integer },
    optional: { error: nullableString },
  },
  agent_set_config_option: {
    required: { id: string, sessionRef: string, configId: string, value: CONFIG_OPTION_VALUE_GUARD },
  },
  agent_config_option_set: {
    required: { id: string, ok: boolean },
    optional: { configOptions: CONFIG_OPTIONS, error: nullableString },
  },
} as const satisfies Readonly<Record<string, AgentFrameShape>>;

export type AgentFrameShapes = typeof AGENT_FRAME_SHAPES;

/** Every frame type of the wire, derived from the table so a new one cannot be forgotten here. */
export type AgentFrameType = keyof AgentFrameShapes;

export const AGENT_FRAME_TYPES: readonly AgentFrameType[] = Object.freeze(
  Object.keys(AGENT_FRAME_SHAPES) as AgentFrameType[],
);

const FRAME_TYPE_SET: ReadonlySet<string> = new Set(AGENT_FRAME_TYPES);

export function isAgentFrameType(value: unknown): value is AgentFrameType {
  return typeof value === 'string' && FRAME_TYPE_SET.has(value);
}

/** The field table of one frame type, with `optional` always present. */
export function agentFrameFields(type: AgentFrameType): FieldGuards {
  const shape: AgentFrameShape = AGENT_FRAME_SHAPES[type];
  return { required: shape.required, optional: shape.optional ?? {} };
}

/** The frame type `T`'s fields as a type, read off the table. */
export type InferAgentFrame<T extends AgentFrameType> = AgentFrameShapes[T] extends {
  readonly required: infer R;
  readonly optional: infer O;
}
  ? InferFields<{ readonly t: Guard<T> } & R, O>
  : AgentFrameShapes[T] extends { readonly required: infer R }
    ? InferFields<{ readonly t: Guard<T> } & R, Record<never, never>>
    : never;
