// A chat session's permission requests: the cards waiting for the person, the requests a remembered
// rule answered, and how each is settled and kept. An answer from a tab goes to the agent; the card
// closes when the agent says the request is settled, whoever answered it first.
import type { AppliedPermissionRule } from '@cairn/protocol';
import type { ChatDeps, Event } from './chat-deps.js';
import { ruleAnswer, suggestionsFor } from './permission-rule-store.js';

export class ChatPermissions {
  private readonly permissions = new Map<string, Event>();
  /** Requests a permission rule answered, until the agent says they are settled. */
  private readonly ruled = new Map<string, { request: Event; applied: AppliedPermissionRule }>();

  constructor(
    private readonly sessionId: string,
    private readonly cwd: string,
    private readonly deps: ChatDeps,
    private readonly broadcast: (event: Event) => void,
  ) {}

  /** The cards still waiting for an answer. */
  pending(): Event[] {
    return [...this.permissions.values()];
  }

  /** A tab's answer to a card. */
  answer(requestId: string, optionId: string): void {
    if (!this.permissions.has(requestId)) return; // settled already: the first answer won
    this.deps.wire.answer(this.sessionId, requestId, optionId);
  }

  /**
   * "Always allow" on a card: the rule (one the card offered) is kept for this project on this
   * session's workstation, and the request is allowed once; later requests it covers there are
   * answered by it.
   */
  rememberRule(requestId: string, rule: string): void {
    const request = this.permissions.get(requestId);
    if (!request || !this.deps.rules) return; // settled already: the first answer won
    const offered = (request.rememberable as { rule: string }[] | undefined) ?? [];
    if (!offered.some((s) => s.rule === rule)) {
      this.broadcast({ type: 'error', message: `the card offered no rule ${rule} to remember` });
      return;
    }
    const options = request.options as { optionId: string; kind: string }[];
    const allow =
      options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
    if (!allow) {
      this.broadcast({ type: 'error', message: 'the agent offered no way to allow this call' });
      return;
    }
    this.deps.rules.remember(this.deps.workstation, this.cwd, 'allow', rule);
    this.deps.wire.answer(this.sessionId, requestId, allow.optionId);
  }

  /** The agent asks: a remembered rule answers, else the tabs get a card. */
  // biome-ignore lint/suspicious/noExplicitAny: an agent's payload, read field by field with checks
  request(p: Record<string, any>): void {
    const event: Event = {
      type: 'permission_request',
      requestId: String(p.requestId),
      toolCall: {
        id: String(p.toolCall?.toolCallId ?? ''),
        title: String(p.toolCall?.title ?? 'The agent asks'),
        ...(typeof p.toolCall?.kind === 'string' ? { kind: p.toolCall.kind } : {}),
        ...(p.toolCall?.rawInput !== undefined ? { args: p.toolCall.rawInput } : {}),
      },
      options: (Array.isArray(p.options) ? p.options : []).map((o: Record<string, unknown>) => ({
        optionId: String(o.optionId),
        name: String(o.name),
        kind: String(o.kind),
      })),
    };
    // A rule remembered for this folder on this workstation (or config.json's) answers before any
    // page is asked.
    const ruled =
      this.deps.rules && ruleAnswer(this.deps.rules, this.deps.workstation, this.cwd, p.toolCall, event);
    if (ruled) {
      this.ruled.set(String(p.requestId), { request: event, applied: ruled.applied });
      this.broadcast(ruled.line);
      this.deps.wire.answer(this.sessionId, String(p.requestId), ruled.optionId);
      return;
    }
    const rememberable = this.deps.rules ? suggestionsFor(p.toolCall, this.cwd) : [];
    if (rememberable.length > 0) event.rememberable = rememberable;
    this.permissions.set(String(p.requestId), event);
    this.broadcast(event);
  }

  /** The agent says a request is settled: kept with its answer, and the card closes. */
  // biome-ignore lint/suspicious/noExplicitAny: an agent's payload, read field by field with checks
  settled(p: Record<string, any>): void {
    const requestId = String(p.requestId);
    const optionId = String(p.outcome);
    const by = String(p.by === 'close' ? 'cancel' : p.by);
    const request = this.permissions.get(requestId);
    this.permissions.delete(requestId);
    if (request) this.deps.store.settlePermission(this.sessionId, { request, optionId, by });
    const ruled = this.ruled.get(requestId);
    this.ruled.delete(requestId);
    if (ruled)
      this.deps.store.settlePermission(this.sessionId, {
        request: ruled.request,
        optionId,
        by,
        rule: ruled.applied,
      });
    this.broadcast({ type: 'permission_settled', requestId, optionId, by });
  }
}
