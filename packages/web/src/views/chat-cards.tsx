// The cards a conversation shows for the agent's questions: a permission request, with a button
// per option under the agent's own names (the first answer, from any tab, settles it), and the
// sign-in card. The agent's words are shown as text.
import { useState } from 'preact/hooks';
import type { PermissionCard } from '../chat/state.js';
import type { ClientMessage, SignIn } from '../chat/wire.js';
import { ArgsView } from './chat-tool.js';

function optionKind(kind: string): string {
  return kind.startsWith('allow') ? 'allow' : kind.startsWith('reject') ? 'reject' : 'other';
}

export function PermissionView({
  card,
  send,
}: {
  card: PermissionCard;
  send: (m: ClientMessage) => boolean;
}) {
  const [answered, setAnswered] = useState<string | null>(null);
  const settled = card.settled;
  const chosen = settled ? card.options.find((o) => o.optionId === settled.optionId) : undefined;
  const args = card.toolCall.args;
  return (
    <section
      class={`permission-card ${settled ? 'settled' : 'pending'}`}
      aria-label={`Permission: ${card.toolCall.title}`}
      data-request={card.requestId}
      data-settled={settled ? (settled.optionId ?? 'none') : undefined}
    >
      <div class="permission-head">
        <span class="badge perm">permission</span>
        {card.toolCall.kind && <span class="type-badge">{card.toolCall.kind}</span>}
        <span class="permission-title">{card.toolCall.title}</span>
      </div>
      {args !== undefined && args !== null && (
        <details class="permission-args">
          <summary class="muted small">what it will do</summary>
          <ArgsView args={args} />
        </details>
      )}
      {settled ? (
        <p class="permission-outcome" role="status">
          {chosen
            ? `Answered: ${chosen.name}`
            : settled.by === 'timeout'
              ? 'No answer came in time'
              : 'Cancelled: the turn ended without an answer'}
        </p>
      ) : (
        <div class="permission-options">
          {card.options.map((o) => (
            <button
              key={o.optionId}
              type="button"
              class={`perm-${optionKind(o.kind)} ${optionKind(o.kind) === 'allow' ? 'primary' : ''}`}
              data-kind={o.kind}
              disabled={answered !== null}
              onClick={() => {
                if (send({ type: 'permission_answer', requestId: card.requestId, optionId: o.optionId }))
                  setAnswered(o.optionId);
              }}
            >
              {o.name}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}

const safeUrl = (url: string | null | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
};

export function SignInCard({ signIn }: { signIn: SignIn }) {
  const url = safeUrl(signIn.url);
  return (
    <div class="signin-card" role="alert" aria-label="Sign-in needed">
      <div class="permission-head">
        <span class="badge err">sign-in needed</span>{' '}
        <span class={`agent-badge agent-${signIn.agent}`}>{signIn.agent}</span>
      </div>
      <p class="signin-message">{signIn.message}</p>
      {signIn.methods.length > 0 && (
        <>
          <p class="small">Ways to sign in:</p>
          <ul class="signin-methods">
            {signIn.methods.map((m) => (
              <li key={m.id}>
                <strong>{m.name}</strong>
                {m.description ? <span class="muted"> — {m.description}</span> : null}
              </li>
            ))}
          </ul>
        </>
      )}
      {url && (
        <p>
          <a href={url} target="_blank" rel="noopener noreferrer">
            Open the login page
          </a>
        </p>
      )}
      <p class="muted small">Sign the agent in, then send the message again.</p>
    </div>
  );
}
