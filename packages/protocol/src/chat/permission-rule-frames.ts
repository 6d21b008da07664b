// cairn's own frames and bodies for permission rules remembered per project: the rules a card
// offers, the answer that remembers one, the line that says a rule answered a request, and the
// settings page's list. They join cairn's extensions in cairn-extensions.ts.
import { type Static, Type } from '@sinclair/typebox';
import { frame, Id, Instant, literals } from './fields.js';

/** cairn's: a standing rule a permission card offers to remember for the chat's project. */
export const PermissionRuleSuggestion = Type.Object(
  {
    scope: literals(['command', 'tool']),
    /** The rule as kept, `Tool` or `Tool(glob)`. */
    rule: Type.String({ minLength: 1 }),
    label: Type.String(),
  },
  { $id: 'PermissionRuleSuggestion' },
);
export type PermissionRuleSuggestion = Static<typeof PermissionRuleSuggestion>;

/** cairn's: the rule that answered a permission request, and where it is kept. */
export const AppliedPermissionRule = Type.Object(
  {
    rule: Type.String({ minLength: 1 }),
    effect: literals(['allow', 'deny']),
    /** `project` for a rule remembered from a card, `config.json` for one of the config file. */
    source: Type.String({ minLength: 1 }),
  },
  { $id: 'AppliedPermissionRule' },
);
export type AppliedPermissionRule = Static<typeof AppliedPermissionRule>;

/** cairn's: a rule answered the agent's permission request without asking; the card is a line. */
export const PermissionRuleAppliedEvent = frame(
  'permission_rule_applied',
  {
    requestId: Id,
    toolCall: Type.Object({ id: Type.String(), title: Type.String(), kind: Type.Optional(Type.String()) }),
    /** The agent's option the rule chose. */
    optionId: Id,
    applied: AppliedPermissionRule,
  },
  'PermissionRuleAppliedEvent',
);
export type PermissionRuleAppliedEvent = Static<typeof PermissionRuleAppliedEvent>;

/** cairn's: answer a pending request by allowing it once and keep one of the rules its card
 * offered for the project, so later requests it covers are answered without a card. */
export const PermissionRememberClientMessage = frame(
  'permission_remember',
  { requestId: Id, rule: Type.String({ minLength: 1, maxLength: 1000 }) },
  'PermissionRememberClientMessage',
);
export type PermissionRememberClientMessage = Static<typeof PermissionRememberClientMessage>;

/** cairn's: a rule kept for a project folder on one workstation (`local`: the daemon's own machine). */
export const RememberedPermissionRule = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    workstation: Type.String({ minLength: 1 }),
    projectPath: Type.String({ minLength: 1 }),
    effect: literals(['allow', 'deny']),
    rule: Type.String({ minLength: 1 }),
    createdAt: Instant,
  },
  { $id: 'RememberedPermissionRule' },
);
export type RememberedPermissionRule = Static<typeof RememberedPermissionRule>;

/** `GET /api/permission-rules`: every workstation's and project's remembered rules, and config.json's (read only
 * here; `problem` says why they could not be read). */
export const PermissionRulesReply = Type.Object(
  {
    rules: Type.Array(RememberedPermissionRule),
    config: Type.Object({
      rules: Type.Array(Type.Object({ effect: literals(['allow', 'deny']), rule: Type.String() })),
      problem: Type.Optional(Type.String()),
    }),
  },
  { $id: 'PermissionRulesReply' },
);
export type PermissionRulesReply = Static<typeof PermissionRulesReply>;
