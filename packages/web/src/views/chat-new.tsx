// Starting a chat: a project folder (recent ones offered), the machine to run on when more than one
// workstation is known, and an agent from that machine's roster, with an install button for an
// agent whose adapter is missing; and Continue, which opens a session found on disk as a chat with
// its agent.
import { useEffect, useState } from 'preact/hooks';
import {
  CONTINUABLE,
  continueSession,
  createChatSession,
  createProject,
  type InstallProgress,
  installAgent,
  installProgress,
  listProjects,
  listWorkstations,
} from '../chat/api.js';
import type { BridgeInfo, ChatWorkstation, WireProject } from '../chat/wire.js';
import { shownText } from '../display.js';
import { chatHref } from '../route.js';
import { ChatList } from './chat-list.js';

const usable = (a: BridgeInfo): boolean => a.adapterInstalled === true;

/** How a machine is named in the picker: offline ones say so, and cannot be picked. */
const machineLabel = (w: ChatWorkstation): string =>
  `${w.local ? `${w.name} (this machine)` : w.name}${w.online ? '' : ' (offline)'}`;

export function NewChatView() {
  const [machines, setMachines] = useState<ChatWorkstation[] | null>(null);
  const [machine, setMachine] = useState('');
  const [projects, setProjects] = useState<WireProject[]>([]);
  const [path, setPath] = useState('');
  const [agent, setAgent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  const [installing, setInstalling] = useState<string | null>(null);
  const [progress, setProgress] = useState<InstallProgress | null>(null);

  const chosen = machines?.find((w) => w.name === machine);
  const agents: BridgeInfo[] | null = machines === null ? null : (chosen?.agents ?? []);
  const pickAgent = (roster: BridgeInfo[]) =>
    setAgent((current) =>
      current && roster.some((x) => x.key === current && usable(x))
        ? current
        : (roster.find(usable)?.key ?? ''),
    );

  /** The rosters again, keeping the machine and agent chosen. */
  const refreshAgents = async () => {
    const w = await listWorkstations();
    if (!w.ok) return;
    setMachines(w.value);
    setMachine((current) => {
      const keep = w.value.find((x) => x.name === current && x.online) ?? w.value.find((x) => x.online);
      pickAgent(keep?.agents ?? []);
      return keep?.name ?? '';
    });
  };

  const loadAgents = async () => {
    const w = await listWorkstations();
    if (!w.ok) {
      setError(`Could not list the agents: ${w.error}`);
      setMachines([]);
      return;
    }
    setMachines(w.value);
    const keep = w.value.find((x) => x.name === machine && x.online) ?? w.value.find((x) => x.online);
    setMachine(keep?.name ?? '');
    pickAgent(keep?.agents ?? []);
  };

  // The roster follows the workstations while the form is open: an agent declared in config.json,
  // or installed from elsewhere, shows up without a reload.
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshAgents();
    }, 3000);
    return () => clearInterval(timer);
  }, []);

  // While an install runs, its phase and npm's latest line, asked for twice a second.
  useEffect(() => {
    if (installing === null) return;
    const remote = chosen && !chosen.local ? chosen.name : undefined;
    let stopped = false;
    const timer = setInterval(async () => {
      const r = await installProgress(installing, remote);
      if (!stopped && r.ok) setProgress(r.value);
    }, 500);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [installing]);

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
    const remote = chosen && !chosen.local ? chosen.name : undefined;
    const project = await createProject(path.trim(), remote);
    if (!project.ok) {
      setWorking(false);
      return setError(project.error);
    }
    const session = await createChatSession(project.value.id, agent, remote);
    setWorking(false);
    if (!session.ok) return setError(session.error);
    window.location.hash = chatHref(session.value.id);
  };

  const install = async (key: string) => {
    setInstalling(key);
    setProgress(null);
    setError(null);
    const r = await installAgent(key, chosen && !chosen.local ? chosen.name : undefined);
    setInstalling(null);
    setProgress(null);
    if (!r.ok) setError(`Could not install ${key}: ${r.error}`);
    await refreshAgents();
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
                title={shownText(p.path)}
              >
                {shownText(p.name)}
              </button>
            ))}
          </div>
        )}
        {machines !== null && machines.length > 1 && (
          <label class="field">
            <span>Machine</span>
            <select
              name="workstation"
              value={machine}
              onChange={(e) => {
                const name = e.currentTarget.value;
                setMachine(name);
                pickAgent(machines.find((w) => w.name === name)?.agents ?? []);
              }}
            >
              {machines.map((w) => (
                <option key={w.name} value={w.name} disabled={!w.online}>
                  {machineLabel(w)}
                </option>
              ))}
            </select>
          </label>
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
                {installing === a.key && <InstallLine progress={progress} />}
              </li>
            ))}
          </ul>
        )}
        {(chosen?.configProblems ?? []).length > 0 && (
          <div class="config-problems" role="alert">
            <p class="err-text small">config.json has problems; the agents it declares may be missing:</p>
            <ul class="small">
              {chosen!.configProblems!.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
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
      <ChatList />
    </section>
  );
}

const PHASES: Record<string, string> = {
  preparing: 'preparing',
  downloading: 'fetching packages',
  checking: 'checking the install',
  done: 'done',
  failed: 'failed',
};

/** An install's phase and npm's latest line, as it goes. */
function InstallLine({ progress }: { progress: InstallProgress | null }) {
  const last = progress?.lines.at(-1);
  return (
    <div class="install-progress" role="status" aria-live="polite" data-phase={progress?.phase ?? 'starting'}>
      <span class="muted small">{progress?.phase ? PHASES[progress.phase] : 'starting'}</span>
      {last !== undefined && <code class="install-line small">{last}</code>}
    </div>
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
