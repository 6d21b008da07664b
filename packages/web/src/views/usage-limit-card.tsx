// The card a turn stopped by a usage or rate limit gets: which limit, when it resets if the agent
// said, and Continue in <another installed agent>, which hands this session off in one click. An
// opt-in setting, kept in this browser, does that by itself when a limit stops a turn in view. The
// session that hit the limit is left as it was.
import { useEffect, useRef, useState } from 'preact/hooks';
import { findChatSession, handOffSession, listAgents } from '../chat/api.js';
import { limitTitle, type UsageLimit } from '../chat/usage-limit.js';
import type { BridgeInfo } from '../chat/wire.js';
import { chatHref } from '../route.js';

/** The agent a limit hands off to by itself; absent: the card waits for a click. */
export const AUTO_CONTINUE_KEY = 'cairn.limit.continueIn';

const autoAgent = (): string | null => {
  try {
    return localStorage.getItem(AUTO_CONTINUE_KEY);
  } catch {
    return null;
  }
};

export function UsageLimitCard({
  limit,
  chatId,
  agent,
  live,
}: {
  limit: UsageLimit;
  chatId: string;
  /** The chat's agent, which is not offered. */
  agent: string;
  /** The limit stopped a turn while this page watched (not one read from the history). */
  live: boolean;
}) {
  const [others, setOthers] = useState<BridgeInfo[] | null>(null);
  const [target, setTarget] = useState('');
  const [auto, setAuto] = useState<string | null>(autoAgent);
  const [working, setWorking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const fired = useRef(false);

  useEffect(() => {
    void listAgents().then((r) => {
      if (!r.ok) return setProblem(`Could not list the agents: ${r.error}`);
      const usable = r.value.filter((a) => a.adapterInstalled === true && a.key !== agent);
      setOthers(usable);
      const preferred = autoAgent();
      setTarget(usable.find((a) => a.key === preferred)?.key ?? usable[0]?.key ?? '');
    });
  }, [agent]);

  const carryOn = async (to: string) => {
    setWorking(true);
    setProblem(null);
    // The agent's id for this session, asked now: a chat just started learns it after the page did.
    const found = await findChatSession(chatId);
    const sid = found.ok ? found.value?.session.nativeSessionId : null;
    if (!sid) {
      setWorking(false);
      return setProblem('The agent named no session to hand off yet.');
    }
    const r = await handOffSession({ agent: to, handoff: { sid, agent, to, preset: 'howto' } });
    setWorking(false);
    if (!r.ok) return setProblem(r.error);
    window.location.hash = chatHref(r.value.session.id);
  };

  // Opted in: a limit seen live is carried on without a click, once.
  useEffect(() => {
    if (!live || fired.current || auto === null || others === null) return;
    if (!others.some((a) => a.key === auto)) return;
    fired.current = true;
    void carryOn(auto);
  }, [live, auto, others]);

  const name = (key: string) => others?.find((a) => a.key === key)?.name ?? key;
  return (
    <section class="usage-limit-card" role="alert" aria-label={limitTitle(limit)} data-kind={limit.kind}>
      <h3>{limitTitle(limit)}</h3>
      <p class="small">
        {agent} stopped: {limit.kind === 'usage' ? 'its usage quota is spent' : 'too many requests for now'}
        {limit.resets
          ? `; it resets ${/^\d/.test(limit.resets) ? 'in ' : ''}${limit.resets}`
          : '; it did not say when it resets'}
        .
      </p>
      {others !== null && others.length === 0 && (
        <p class="muted small">No other agent is installed to carry on in.</p>
      )}
      {others !== null && others.length > 0 && (
        <div class="limit-actions">
          {others.length > 1 && (
            <select
              aria-label="Agent to continue in"
              value={target}
              onChange={(e) => setTarget(e.currentTarget.value)}
            >
              {others.map((a) => (
                <option key={a.key} value={a.key}>
                  {a.name}
                </option>
              ))}
            </select>
          )}{' '}
          <button
            type="button"
            class="primary small"
            disabled={working || !target}
            onClick={() => void carryOn(target)}
          >
            {working ? 'Handing off…' : `Continue in ${name(target)}`}
          </button>{' '}
          <label class="check small">
            <input
              type="checkbox"
              checked={auto !== null}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                try {
                  if (on) localStorage.setItem(AUTO_CONTINUE_KEY, target);
                  else localStorage.removeItem(AUTO_CONTINUE_KEY);
                } catch {
                  // Storage refused (a private window): the choice lasts for this page only.
                }
                setAuto(on ? target : null);
              }}
            />{' '}
            next time, continue in {name(auto ?? target)} by itself
          </label>
        </div>
      )}
      {problem && (
        <p class="err-text small" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
