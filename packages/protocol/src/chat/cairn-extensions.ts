// cairn's own frames, where spectral's wire has nothing to say: permission requests and their
// settling, sign-in, config options, the outcome of a steer, and the browser's controls for them
// (stop, steer, answers, queue edits, config changes). They follow spectral's conventions (a
// snake_case `type`, camelCase fields) but are cairn's, not spectral's.
import { type Static, Type } from '@sinclair/typebox';
import { AuthMethodInfoSchema, SessionConfigOptionSchema } from './agent-wire-shapes.js';
import { AvailableCommandsEvent } from './composer.js';
import { frame, Id, literals } from './fields.js';
import { ImageAttachment } from './images.js';
import {
  AppliedPermissionRule,
  PermissionRememberClientMessage,
  PermissionRuleAppliedEvent,
  PermissionRuleSuggestion,
} from './permission-rule-frames.js';

/** cairn's: how an answer binds, in the agent protocol's terms. */
export const PermissionOptionKind = literals(['allow_once', 'allow_always', 'reject_once', 'reject_always'], {
  $id: 'PermissionOptionKind',
});
export type PermissionOptionKind = Static<typeof PermissionOptionKind>;

/** cairn's: one answer the agent offers, shown as a button under its own name. */
export const PermissionOption = Type.Object(
  { optionId: Id, name: Type.String(), kind: PermissionOptionKind },
  { $id: 'PermissionOption' },
);
export type PermissionOption = Static<typeof PermissionOption>;

/** cairn's: the tool call a permission is asked for. */
export const PermissionToolCall = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    /** The agent protocol's kind of tool (`edit`, `execute`, …) when the agent says. */
    kind: Type.Optional(Type.String()),
    args: Type.Optional(Type.Unknown()),
  },
  { $id: 'PermissionToolCall' },
);
export type PermissionToolCall = Static<typeof PermissionToolCall>;

/** cairn's: the agent asks before a tool call. Every tab of the session gets it; the first answer wins
 * and the request is then settled for all of them. */
export const PermissionRequestEvent = frame(
  'permission_request',
  {
    requestId: Id,
    toolCall: PermissionToolCall,
    options: Type.Array(PermissionOption),
    /** The standing rules the card offers to remember for the project (cairn's, not the agent's). */
    rememberable: Type.Optional(Type.Array(PermissionRuleSuggestion)),
  },
  'PermissionRequestEvent',
);
export type PermissionRequestEvent = Static<typeof PermissionRequestEvent>;

/** cairn's: a permission request is over. `optionId` is the option chosen, or `cancelled` when none
 * was (the turn was stopped, or the request timed out). */
export const PermissionSettledEvent = frame(
  'permission_settled',
  { requestId: Id, optionId: Id, by: literals(['answer', 'timeout', 'cancel']) },
  'PermissionSettledEvent',
);
export type PermissionSettledEvent = Static<typeof PermissionSettledEvent>;

/** cairn's: a permission request and how it was settled, so a tab that opens later shows the card
 * as it ended. */
export const SettledPermission = Type.Object(
  {
    request: PermissionRequestEvent,
    optionId: Id,
    by: literals(['answer', 'timeout', 'cancel']),
    /** The rule that answered it, when no one had to. */
    rule: Type.Optional(AppliedPermissionRule),
  },
  { $id: 'SettledPermission' },
);
export type SettledPermission = Static<typeof SettledPermission>;

/** The `optionId` of a permission settled without an answer. */
export const PERMISSION_CANCELLED_OPTION_ID = 'cancelled';

/** cairn's: the agent needs signing in before it can work; a client shows a sign-in card with the
 * agent's methods, and the login address when the agent gave one. */
export const SignInRequiredEvent = frame(
  'sign_in_required',
  {
    agent: Id,
    message: Type.String(),
    methods: Type.Array(AuthMethodInfoSchema),
    url: Type.Optional(Type.String({ minLength: 1 })),
  },
  'SignInRequiredEvent',
);
export type SignInRequiredEvent = Static<typeof SignInRequiredEvent>;

/** cairn's: how a sign-in started from the card ended, for every tab of the session. `ok` with a key
 * means the key is kept for the agent's next start; the key itself is never sent back. */
export const SignInResultEvent = frame(
  'sign_in_result',
  { agent: Id, methodId: Id, ok: Type.Boolean(), message: Type.String() },
  'SignInResultEvent',
);
export type SignInResultEvent = Static<typeof SignInResultEvent>;

/** cairn's: the session's config options (model, mode, …) as the agent now states them, whole. */
export const ConfigOptionsEvent = frame(
  'config_options',
  { configOptions: Type.Array(SessionConfigOptionSchema) },
  'ConfigOptionsEvent',
);
export type ConfigOptionsEvent = Static<typeof ConfigOptionsEvent>;

/** cairn's: the answer to a `steer`, to the tab that sent it: injected into the running turn, or put
 * on the queue (the agent cannot steer, or not with that content); `error` when neither happened. */
export const SteerResultEvent = frame(
  'steer_result',
  {
    ok: Type.Boolean(),
    outcome: Type.Optional(literals(['injected', 'queued'])),
    error: Type.Optional(Type.String()),
  },
  'SteerResultEvent',
);
export type SteerResultEvent = Static<typeof SteerResultEvent>;

/** cairn's server events, in the order they join `ServerEvent`. */
export const CAIRN_SERVER_EVENT_MEMBERS = [
  PermissionRequestEvent,
  PermissionSettledEvent,
  SignInRequiredEvent,
  ConfigOptionsEvent,
  SteerResultEvent,
  SignInResultEvent,
  AvailableCommandsEvent,
  PermissionRuleAppliedEvent,
] as const;

/** cairn's: interrupt the running turn. */
export const StopClientMessage = frame('stop', {}, 'StopClientMessage');
export type StopClientMessage = Static<typeof StopClientMessage>;

/** cairn's: add to the running turn. The server steers where the agent can and queues otherwise, and
 * answers with `steer_result`. */
export const SteerClientMessage = frame(
  'steer',
  { content: Type.String(), images: Type.Optional(Type.Array(ImageAttachment)) },
  'SteerClientMessage',
);
export type SteerClientMessage = Static<typeof SteerClientMessage>;

/** cairn's: the answer to a `permission_request`, by one of its options. */
export const PermissionAnswerClientMessage = frame(
  'permission_answer',
  { requestId: Id, optionId: Id },
  'PermissionAnswerClientMessage',
);
export type PermissionAnswerClientMessage = Static<typeof PermissionAnswerClientMessage>;

/** cairn's: take a prompt off the queue. */
export const QueueRemoveClientMessage = frame('queue_remove', { id: Id }, 'QueueRemoveClientMessage');
export type QueueRemoveClientMessage = Static<typeof QueueRemoveClientMessage>;

/** cairn's: rewrite a queued prompt's text. */
export const QueueEditClientMessage = frame(
  'queue_edit',
  { id: Id, content: Type.String() },
  'QueueEditClientMessage',
);
export type QueueEditClientMessage = Static<typeof QueueEditClientMessage>;

/** cairn's: empty the queue. */
export const QueueClearClientMessage = frame('queue_clear', {}, 'QueueClearClientMessage');
export type QueueClearClientMessage = Static<typeof QueueClearClientMessage>;

/** cairn's: set one of the agent's config options: a select's option id, or a boolean toggle. */
export const SetConfigOptionClientMessage = frame(
  'set_config_option',
  { configId: Id, value: Type.Union([Type.String(), Type.Boolean()]) },
  'SetConfigOptionClientMessage',
);
export type SetConfigOptionClientMessage = Static<typeof SetConfigOptionClientMessage>;

/** cairn's: end a dev process the session's agent started (a command it ran in a terminal). */
export const DevProcessKillClientMessage = frame(
  'dev_process_kill',
  { processId: Id },
  'DevProcessKillClientMessage',
);
export type DevProcessKillClientMessage = Static<typeof DevProcessKillClientMessage>;

/** cairn's: sign the session's agent in with one of the methods of its sign-in card. With `key`,
 * an API key to keep where the agent reads it (never echoed, never logged); without, the agent's
 * own sign-in is started, and an address it gives comes back on the card. */
export const SignInClientMessage = frame(
  'sign_in',
  { methodId: Id, key: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) },
  'SignInClientMessage',
);
export type SignInClientMessage = Static<typeof SignInClientMessage>;

/** cairn's client messages, in the order they join `ClientMessage`. */
export const CAIRN_CLIENT_MESSAGE_MEMBERS = [
  StopClientMessage,
  SteerClientMessage,
  PermissionAnswerClientMessage,
  QueueRemoveClientMessage,
  QueueEditClientMessage,
  QueueClearClientMessage,
  SetConfigOptionClientMessage,
  DevProcessKillClientMessage,
  SignInClientMessage,
  PermissionRememberClientMessage,
] as const;
