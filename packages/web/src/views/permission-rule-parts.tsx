// What a permission card shows of cairn's remembered rules: the "always allow … in this project"
// buttons under the agent's own options, and, for a request a rule answered, the line that names
// the rule in place of the card.
import type { PermissionCard } from '../chat/state.js';
import type { ClientMessage } from '../chat/wire.js';

/** One button per rule the card offers; a click keeps the rule and allows this call once. */
export function RememberRuleButtons({
  card,
  send,
  answered,
  onAnswered,
}: {
  card: PermissionCard;
  send: (m: ClientMessage) => boolean;
  answered: boolean;
  onAnswered: () => void;
}) {
  const offered = card.rememberable ?? [];
  if (offered.length === 0) return null;
  return (
    <div class="permission-remember">
      {offered.map((s) => (
        <button
          key={s.rule}
          type="button"
          class="perm-remember"
          data-scope={s.scope}
          data-rule={s.rule}
          title={`Keeps the rule ${s.rule} for this project; later calls it covers are allowed without asking`}
          disabled={answered}
          onClick={() => {
            if (send({ type: 'permission_remember', requestId: card.requestId, rule: s.rule })) onAnswered();
          }}
        >
          {s.label}
          {/* The tool's rule is its name, which the label says already. */}
          {s.scope === 'command' && (
            <>
              {' '}
              <code>{s.rule}</code>
            </>
          )}
        </button>
      ))}
    </div>
  );
}

/** A request a rule answered: which call, how, and by which rule kept where. */
export function RuleAnsweredLine({ card }: { card: PermissionCard }) {
  const rule = card.rule;
  if (!rule) return null;
  const where = rule.source === 'project' ? "this project's rule" : `the ${rule.source} rule`;
  return (
    <p
      class={`permission-rule-line rule-${rule.effect}`}
      role="status"
      data-request={card.requestId}
      data-rule={rule.rule}
      data-effect={rule.effect}
    >
      <span class="permission-rule-title">{card.toolCall.title}</span>
      {rule.effect === 'allow' ? ' allowed by ' : ' rejected by '}
      {where} <code>{rule.rule}</code>
      {rule.source === 'project' ? (
        <>
          {' '}
          · <a href="#/settings">manage rules</a>
        </>
      ) : null}
    </p>
  );
}
