// The cards a conversation shows for the agent's questions: a permission request, with a button
// per option under the agent's own names (the first answer, from any tab, settles it), and the
// sign-in card. The agent's words are shown as text.
import { useState } from 'preact/hooks';
import type { PermissionCard } from '../chat/state.js';
import type { ClientMessage, SignIn, SignInMethod } from '../chat/wire.js';
import { ArgsView } from './chat-tool.js';
import { RememberRuleButtons, RuleAnsweredLine } from './permission-rule-parts.js';

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
  // A rule answered it: a line names the rule instead of a card.
  if (card.rule) return <RuleAnsweredLine card={card} />;
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
      {!settled && (
        <RememberRuleButtons
          card={card}
          send={send}
          answered={answered !== null}
          onAnswered={() => setAnswered('remembered')}
        />
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

/** A method a key answers: by its kind, or by its name (as the agents name theirs). */
const takesKey = (m: SignInMethod): boolean =>
  m.type === 'env_var' || /api[-_ ]?key/i.test(m.id) || /api[-_ ]?key/i.test(m.name);

/** The command that signs the agent in from a terminal with one method. */
export const loginCommand = (agent: string, methodId: string): string =>
  `cairn agents login ${agent} --method ${methodId}`;

/**
 * The sign-in card: each method the agent offers can be used from here. A method a key answers
 * takes the key (kept by cairn where the agent reads it; the page forgets it once sent); any other
 * can be started here, and the login address the agent then gives is offered as a link; and every
 * method has its exact terminal command to copy.
 */
export function SignInCard({ signIn, send }: { signIn: SignIn; send: (m: ClientMessage) => boolean }) {
  const url = safeUrl(signIn.url);
  const [pending, setPending] = useState<string | null>(null);
  const failure = signIn.failure;
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
              <li key={m.id} data-method={m.id}>
                <strong>{m.name}</strong>
                {m.description ? <span class="muted"> — {m.description}</span> : null}
                {takesKey(m) ? (
                  <KeyForm
                    method={m}
                    busy={pending === m.id && failure === undefined}
                    onKey={(key) => {
                      if (send({ type: 'sign_in', methodId: m.id, key })) setPending(m.id);
                    }}
                  />
                ) : (
                  <div class="signin-start">
                    <button
                      type="button"
                      class="small"
                      disabled={pending === m.id && failure === undefined}
                      onClick={() => {
                        if (send({ type: 'sign_in', methodId: m.id })) setPending(m.id);
                      }}
                    >
                      {pending === m.id && failure === undefined ? 'Signing in…' : 'Sign in'}
                    </button>
                  </div>
                )}
                <CommandLine command={loginCommand(signIn.agent, m.id)} />
              </li>
            ))}
          </ul>
        </>
      )}
      {url && (
        <p>
          <a class="signin-link" href={url} target="_blank" rel="noopener noreferrer">
            Open the login page
          </a>
        </p>
      )}
      {failure !== undefined && (
        <p class="err-text small signin-failure" role="status">
          {failure}
        </p>
      )}
      <p class="muted small">Sign the agent in, then send the message again.</p>
    </div>
  );
}

/** A password field for a method's key; the field is emptied once the key is sent. */
function KeyForm({
  method,
  busy,
  onKey,
}: {
  method: SignInMethod;
  busy: boolean;
  onKey: (key: string) => void;
}) {
  const [key, setKey] = useState('');
  return (
    <form
      class="signin-key"
      onSubmit={(e) => {
        e.preventDefault();
        const value = key.trim();
        if (value === '') return;
        onKey(value);
        setKey('');
      }}
    >
      <input
        type="password"
        name="api-key"
        autoComplete="off"
        spellcheck={false}
        aria-label={`API key for ${method.name}`}
        placeholder="paste the key"
        value={key}
        onInput={(e) => setKey(e.currentTarget.value)}
      />
      <button type="submit" class="small primary" disabled={busy || key.trim() === ''}>
        {busy ? 'Saving…' : 'Save key'}
      </button>
    </form>
  );
}

/** A command shown whole, with a button that copies it. */
function CommandLine({ command }: { command: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="signin-command">
      <code class="signin-command-text">{command}</code>{' '}
      <button
        type="button"
        class="small"
        aria-label={`Copy: ${command}`}
        onClick={() => {
          void navigator.clipboard?.writeText(command).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
