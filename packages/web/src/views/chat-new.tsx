// Starting a chat: a project folder (recent ones offered) and an agent from the roster, with an
// install button for an agent whose adapter is missing; and Continue, which opens a session found
// on disk as a chat with its agent.
import { useEffect, useState } from 'preact/hooks';
import {
  CONTINUABLE,
  continueSession,
  createChatSession,
  createProject,
  installAgent,
  listAgents,
  listProjects,
} from '../chat/api.js';
import type { BridgeInfo, WireProject } from '../chat/wire.js';
import { chatHref } from '../route.js';

const usable = (a: BridgeInfo): boolean => a.adapterInstalled === true;

export function NewChatView() {
  const [agents, setAgents] = useState<BridgeInfo[] | null>(null);
  const [projects, setProjects] = useState<WireProject[]>([]);
  const [path, setPath] = useState('');
  const [agent, setAgent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  const [installing, setInstalling] = useState<string | null>(null);

  const loadAgents = async () => {
    const a = await listAgents();
    if (!a.ok) {
      setError(`Could not list the agents: ${a.error}`);
      setAgents([]);
      return;
    }
    setAgents(a.value);
    setAgent((current) =>
      current && a.value.some((x) => x.key === current && usable(x))
        ? current
        : (a.value.find(usable)?.key ?? ''),
    );
  };

  useEffect(() => {
    document.title = 'New chat · cairn';
    void loadAgents();
    void listProjects().then((p) => {
      if (!p.ok) return;
      // Offered, not filled in: a folder typed meanwhile must not be changed under the typist.
      setProjects(p.value);
    });
  }, []);

  const start = async () => {
    setError(null);
    if (path.trim() === '') return setError('Name the project folder the agent works in.');
    if (agent === '') return setError('Pick an agent.');
    setWorking(true);
    const project = await createProject(path.trim());
    if (!project.ok) {
      setWorking(false);
      return setError(project.error);
    }
    const session = await createChatSession(project.value.id, agent);
    setWorking(false);
    if (!session.ok) return setError(session.error);
    window.location.hash = chatHref(session.value.id);
  };

  const install = async (key: string) => {
    setInstalling(key);
    setError(null);
    const r = await installAgent(key);
    setInstalling(null);
    if (!r.ok) setError(`Could not install ${key}: ${r.error}`);
    await loadAgents();
  };

  const missing = (agents ?? []).filter((a) => !usable(a));
  return (
    <section class="new-chat-view">
      <div class="crumbs">
        <a href="#/">Sessions</a> <span aria-hidden="true">/</span> <span class="muted">new chat</span>
      </div>
      <h1>New chat</h1>
      <form
        class="new-chat-form"
        aria-label="New chat"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label class="field">
          <span>Project folder</span>
          <input
            name="project"
            placeholder="/path/to/your/project"
            autoComplete="off"
            value={path}
            onInput={(e) => setPath(e.currentTarget.value)}
          />
        </label>
        {projects.length > 0 && (
          <div class="recent-folders">
            <span class="muted small">Recent folders:</span>
            {projects.slice(0, 8).map((p) => (
              <button
                key={p.id}
                type="button"
                class={`chip ${p.path === path ? 'on' : ''}`}
                onClick={() => setPath(p.path)}
                title={p.path}
              >
                {p.name}
              </button>
            ))}
          </div>
        )}
        <label class="field">
          <span>Agent</span>
          <select name="agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
            {agents === null && <option value="">listing agents…</option>}
            {agents?.length === 0 && <option value="">no agents</option>}
            {(agents ?? []).map((a) => (
              <option key={a.key} value={a.key} disabled={!usable(a)}>
                {a.name}
                {a.version ? ` ${a.version}` : ''}
                {usable(a) ? '' : ' (not installed)'}
              </option>
            ))}
          </select>
        </label>
        {missing.length > 0 && (
          <ul class="agent-roster">
            {missing.map((a) => (
              <li key={a.key} data-agent={a.key}>
                <span>{a.name}</span>{' '}
                <span class="muted small">
                  {a.cliInstalled ? 'its adapter is not installed' : 'not installed'}
                </span>{' '}
                <button
                  type="button"
                  class="small"
                  disabled={installing !== null}
                  onClick={() => void install(a.key)}
                >
                  {installing === a.key ? 'Installing…' : 'Install'}
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && (
          <p class="err-text" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" class="primary" disabled={working}>
            Start
          </button>
          {working && <span class="muted small"> starting…</span>}
        </div>
      </form>
    </section>
  );
}

/** Opens a session found on disk as a chat with its agent (which loads it by its own id). */
export function ContinueButton({ agent, sid, cwd }: { agent: string; sid: string; cwd: string | undefined }) {
  const [working, setWorking] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  if (!CONTINUABLE.has(agent)) return null;
  return (
    <span class="continue">
      <button
        type="button"
        class="small continue-button"
        disabled={working || cwd === undefined}
        title={
          cwd === undefined ? 'the session names no folder to work in' : `continue this session with ${agent}`
        }
        onClick={async (e) => {
          e.preventDefault();
          e.stopPropagation();
          if (cwd === undefined) return;
          setWorking(true);
          setFailed(null);
          const r = await continueSession(agent, sid, cwd);
          setWorking(false);
          if (!r.ok) return setFailed(r.error);
          window.location.hash = chatHref(r.value.id);
        }}
      >
        {working ? 'Opening…' : 'Continue'}
      </button>
      {failed && (
        <span class="err-text small" role="alert">
          {' '}
          {failed}
        </span>
      )}
    </span>
  );
}
