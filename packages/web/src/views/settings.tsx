// Settings: the permission rules cairn remembers per workstation and project folder ("always allow
// … in this project" on a chat's permission card), each revocable here, and config.json's rules
// beside them, which are changed in that file.
import type { PermissionRulesReply, RememberedPermissionRule } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import type { Answer } from '../chat/api.js';
import { listPermissionRules, revokePermissionRule } from '../chat/permission-rules-api.js';

type Loaded = { loading: true } | { loading: false; answer: Answer<PermissionRulesReply> };

interface RuleGroup {
  readonly workstation: string;
  readonly path: string;
  readonly rules: RememberedPermissionRule[];
}

/** The remembered rules, grouped by workstation and project folder in the order the server lists them. */
function byProject(rules: readonly RememberedPermissionRule[]): RuleGroup[] {
  const groups = new Map<string, RuleGroup>();
  for (const rule of rules) {
    const key = JSON.stringify([rule.workstation, rule.projectPath]);
    const group = groups.get(key) ?? { workstation: rule.workstation, path: rule.projectPath, rules: [] };
    group.rules.push(rule);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export function SettingsView() {
  const [loaded, setLoaded] = useState<Loaded>({ loading: true });
  const [problem, setProblem] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const load = () => listPermissionRules().then((answer) => setLoaded({ loading: false, answer }));
  useEffect(() => {
    void load();
  }, []);

  const revoke = async (rule: RememberedPermissionRule) => {
    setRevoking(rule.id);
    const done = await revokePermissionRule(rule.id);
    setProblem(done.ok ? null : `${rule.rule} was not revoked: ${done.error}`);
    await load();
    setRevoking(null);
  };

  return (
    <section class="settings-view" aria-labelledby="settings-rules-title">
      <h1 id="settings-rules-title">Permission rules</h1>
      <p class="muted">
        Rules cairn keeps for a project folder on one workstation when a permission card's “Always allow” is
        chosen. A chat in that folder on that workstation is then answered by the rule without a card. They
        are cairn's own, not the agent's settings.
      </p>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {loaded.loading ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : !loaded.answer.ok ? (
        <p class="error" role="alert">
          The rules could not be read: {loaded.answer.error}
        </p>
      ) : (
        <>
          {loaded.answer.value.rules.length === 0 ? (
            <p class="settings-empty" role="status">
              No rules remembered yet.
            </p>
          ) : (
            byProject(loaded.answer.value.rules).map(({ workstation, path, rules }) => (
              <section
                key={`${workstation} ${path}`}
                class="settings-project"
                aria-label={`Rules of ${path} on ${workstation}`}
              >
                <h2 class="settings-project-path">
                  {path} <span class="muted small">on {workstation}</span>
                </h2>
                <ul class="settings-rules">
                  {rules.map((rule) => (
                    <li key={rule.id} class="settings-rule" data-rule={rule.rule} data-effect={rule.effect}>
                      <span class={`badge rule-${rule.effect}`}>{rule.effect}</span>
                      <code>{rule.rule}</code>
                      <span class="muted small">since {new Date(rule.createdAt).toLocaleString()}</span>
                      <button
                        type="button"
                        class="danger"
                        disabled={revoking !== null}
                        aria-label={`Revoke ${rule.rule} in ${path} on ${workstation}`}
                        onClick={() => void revoke(rule)}
                      >
                        Revoke
                      </button>
                    </li>
                  ))}
                </ul>
              </section>
            ))
          )}
          <ConfigRules config={loaded.answer.value.config} />
        </>
      )}
    </section>
  );
}

function ConfigRules({ config }: { config: PermissionRulesReply['config'] }) {
  if (config.rules.length === 0 && config.problem === undefined) return null;
  return (
    <section class="settings-project settings-config" aria-label="Rules of config.json">
      <h2>config.json (every project)</h2>
      {config.problem && (
        <p class="error" role="alert">
          {config.problem}
        </p>
      )}
      <ul class="settings-rules">
        {config.rules.map((rule) => (
          <li key={`${rule.effect} ${rule.rule}`} class="settings-rule" data-effect={rule.effect}>
            <span class={`badge rule-${rule.effect}`}>{rule.effect}</span>
            <code>{rule.rule}</code>
            <span class="muted small">edit config.json to change</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
