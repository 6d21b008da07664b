// Hand off to…: a session's chosen items, as a document, become the first prompt of a new chat with
// another agent. The panel picks the agent (installed ones) and the selection (a preset, item
// types), shows the document's size and what will be redacted before anything is sent, then opens
// the new chat once its agent took the document. Asked from a prompt of the reader's timeline, the
// same panel starts a fork. To the source's own agent it asks that agent to fork the session itself
// (the history before the prompt, then the prompt again), so there is no document to review; the
// daemon hands a document over instead when the agent cannot, and the panel then says so and shows
// what was sent. To another agent a fork is a hand-off of the history up to and including the prompt.
import type {
  DumpPreset,
  SessionHandoffPreviewArgs,
  SessionHandoffPreviewResult,
  SessionLink,
} from '@cairn/protocol';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { handOffSession, listAgents } from '../chat/api.js';
import type { BridgeInfo } from '../chat/wire.js';
import { useServices } from '../context.js';
import { formatBytes, formatCount } from '../format.js';
import { chatHref } from '../route.js';

/** The preset a hand-off starts from: what was asked, said and done. */
const DEFAULT_PRESET = 'howto';

export interface HandoffSourceRef {
  /** The source's agent as the reader or the chat names it. */
  readonly agent: string;
  readonly sid: string;
}

/** The typed types line as selectors: commas or spaces between them. */
const typesOf = (text: string): string[] => text.split(/[\s,]+/).filter((t) => t !== '');

export function HandoffButton({ source, exclude }: { source: HandoffSourceRef; exclude?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <span class="handoff">
      <button
        type="button"
        class="small handoff-button"
        aria-expanded={open ? 'true' : 'false'}
        onClick={() => setOpen(!open)}
      >
        Hand off to…
      </button>
      {open && <HandoffPanel source={source} exclude={exclude} onClose={() => setOpen(false)} />}
    </span>
  );
}

/** The panel; with `forkAt` (a prompt of the source) it starts a fork from that prompt, made by the
 * source's own agent unless another is picked. */
export function HandoffPanel({
  source,
  exclude,
  forkAt,
  onClose,
}: {
  source: HandoffSourceRef;
  exclude?: string | undefined;
  forkAt?: string | undefined;
  onClose: () => void;
}) {
  const { conn } = useServices();
  const [agents, setAgents] = useState<BridgeInfo[] | null>(null);
  const [agent, setAgent] = useState('');
  const [presets, setPresets] = useState<readonly DumpPreset[]>([]);
  const [preset, setPreset] = useState(DEFAULT_PRESET);
  const [types, setTypes] = useState('');
  const [prompt, setPrompt] = useState('');
  const [redact, setRedact] = useState(true);
  // Ids of secrets found that the user chose to leave in the document.
  const [keep, setKeep] = useState<readonly string[]>([]);
  const [cwd, setCwd] = useState<string | null>(null);
  const [preview, setPreview] = useState<SessionHandoffPreviewResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // A fork the agent was asked to make itself but that went as a document: the chat it opened.
  const [fellBack, setFellBack] = useState<{ chat: string; link: SessionLink } | null>(null);

  useEffect(() => {
    void listAgents().then((r) => {
      if (!r.ok) return setProblem(`Could not list the agents: ${r.error}`);
      const installed = r.value.filter((a) => a.adapterInstalled === true);
      setAgents(installed);
      const preferred =
        forkAt !== undefined
          ? installed.find((a) => a.key === source.agent)
          : installed.find((a) => a.key !== exclude);
      setAgent(preferred?.key ?? installed[0]?.key ?? '');
    });
    void conn.request('dump_presets_read', {}).then((r) => {
      if (r.ok) setPresets(r.value.presets);
    });
  }, []);

  const args = useMemo((): SessionHandoffPreviewArgs => {
    const chosen = typesOf(types);
    return {
      sid: source.sid,
      agent: source.agent,
      ...(agent ? { to: agent } : {}),
      ...(preset ? { preset } : {}),
      ...(chosen.length > 0 ? { types: chosen } : {}),
      ...(prompt.trim() ? { prompt: prompt.trim() } : {}),
      ...(forkAt !== undefined ? { kind: 'fork' as const, until_uuid: forkAt } : {}),
      redact,
      ...(redact && keep.length > 0 ? { keep: [...keep] } : {}),
    };
  }, [source.sid, source.agent, agent, preset, types, prompt, redact, keep, forkAt]);

  // A fork to the source's own agent is the agent's to make: no document is built for it unless the
  // agent could not, and then the review shows what was sent.
  const byAgent = forkAt !== undefined && agent !== '' && agent === source.agent;
  const showsDocument = !byAgent || fellBack !== null;
  const agentWay = byAgent && fellBack === null;
  // Once sent, the choices stay as they were, so the review below is of what went.
  const locked = fellBack !== null;
  const agentName = agents?.find((a) => a.key === agent)?.name ?? agent;

  // The size follows the choices, measured by the daemon with the document it would send.
  useEffect(() => {
    if (!showsDocument) return;
    let current = true;
    const timer = setTimeout(async () => {
      const r = await conn.request('session_handoff_preview', args);
      if (!current) return;
      if (!r.ok) {
        setPreview(null);
        setProblem(r.error.message);
        return;
      }
      setProblem(null);
      setPreview(r.value);
      setCwd((was) => was ?? r.value.cwd ?? '');
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [args, showsDocument]);

  const tooBig = showsDocument && preview !== null && preview.bytes > preview.max_bytes;
  const send = async () => {
    if (!agent) return setProblem('Pick an agent to hand off to.');
    setSending(true);
    setProblem(null);
    // The agent's fork runs where the source was recorded: the agent finds the session by its folder.
    const r = await handOffSession({
      agent,
      handoff: args,
      ...(byAgent ? { via: 'agent' as const } : cwd?.trim() ? { cwd: cwd.trim() } : {}),
    });
    setSending(false);
    if (!r.ok) return setProblem(r.error);
    if (byAgent && r.value.link.via !== 'agent') {
      // Measured again below from the same choices: the document the daemon sent instead.
      setPreview(null);
      return setFellBack({ chat: r.value.session.id, link: r.value.link });
    }
    window.location.hash = chatHref(r.value.session.id);
  };

  // A fork is asked for from a row far down the timeline: the panel takes the focus, so the keyboard
  // goes on in it.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (forkAt === undefined) return;
    form.current?.scrollIntoView({ block: 'nearest' });
    form.current?.querySelector('select')?.focus();
  }, []);

  const redacted = Object.entries(preview?.redacted ?? {});
  const findings = preview?.findings ?? [];
  const keptCount = findings.filter((f) => f.kept).length;
  const toggleKeep = (id: string, kept: boolean) =>
    setKeep((was) => (kept ? [...was.filter((k) => k !== id), id] : was.filter((k) => k !== id)));
  return (
    <form
      ref={form}
      class={`handoff-panel${forkAt === undefined ? '' : ' fork-panel'}`}
      aria-label={forkAt === undefined ? 'Hand off' : 'Fork'}
      data-via={agentWay ? 'agent' : 'handoff'}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {forkAt !== undefined && fellBack === null && (
        <p class="small fork-point">
          Fork from <code>{forkAt.length > 13 ? `${forkAt.slice(0, 8)}…` : forkAt}</code>:{' '}
          {agentWay
            ? `${agentName} forks this session itself. The new session holds everything before this prompt, and is asked the prompt again (or what you write below).`
            : 'the new session is handed a document of the history up to and including this prompt, and nothing after it.'}
        </p>
      )}
      {fellBack !== null && (
        <p class="small fork-fell-back" role="status" data-via={fellBack.link.via ?? 'handoff'}>
          {agentName} could not fork this session itself, so the new session was handed the history as a
          document instead: what it was sent is measured below.{' '}
          <a href={chatHref(fellBack.chat)}>Open the chat</a>
        </p>
      )}
      <label class="field">
        <span>Agent</span>
        <select
          name="handoff-agent"
          disabled={locked}
          value={agent}
          onChange={(e) => setAgent(e.currentTarget.value)}
        >
          {agents === null && <option value="">listing agents…</option>}
          {agents?.length === 0 && <option value="">no agent is installed</option>}
          {(agents ?? []).map((a) => (
            <option key={a.key} value={a.key}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {showsDocument && (
        <>
          <label class="field">
            <span>Preset</span>
            <select
              name="handoff-preset"
              disabled={locked}
              value={preset}
              onChange={(e) => setPreset(e.currentTarget.value)}
            >
              <option value="">none (the default types)</option>
              {presets.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Types</span>
            <input
              name="handoff-types"
              disabled={locked}
              placeholder="-thinking, tool:Bash"
              autoComplete="off"
              value={types}
              onInput={(e) => setTypes(e.currentTarget.value)}
            />
          </label>
        </>
      )}
      <label class="field">
        <span>What to ask</span>
        <textarea
          class="handoff-prompt"
          name="handoff-prompt"
          disabled={locked}
          rows={2}
          placeholder={
            forkAt === undefined
              ? 'Carry on with the work (the default)'
              : agentWay
                ? 'This prompt again (the default)'
                : 'Go on from this point (the default)'
          }
          value={prompt}
          onInput={(e) => setPrompt(e.currentTarget.value)}
        />
      </label>
      {showsDocument && (
        <>
          <label class="field">
            <span>Project folder</span>
            <input
              name="handoff-cwd"
              disabled={locked}
              autoComplete="off"
              value={cwd ?? ''}
              onInput={(e) => setCwd(e.currentTarget.value)}
            />
          </label>
          <label class="check small">
            <input
              type="checkbox"
              disabled={locked}
              checked={redact}
              onChange={(e) => setRedact(e.currentTarget.checked)}
            />{' '}
            Redact secrets
          </label>
          <p class="handoff-size small" role="status" aria-live="polite" data-ready={preview ? 'yes' : 'no'}>
            {preview === null
              ? 'measuring…'
              : `${formatCount(preview.items)} items · ${formatBytes(preview.bytes)} · about ${formatCount(preview.tokens)} tokens`}
            {preview !== null &&
              (preview.redacted === undefined
                ? ' · secrets not redacted'
                : redacted.length === 0
                  ? findings.length === 0
                    ? ' · no secrets found'
                    : ' · no secret redacted'
                  : ` · ${redacted.reduce((n, [, c]) => n + c, 0)} secrets redacted (${redacted.map(([k, c]) => `${k} ×${c}`).join(', ')})`)}
            {preview !== null && keptCount > 0 && ` · ${keptCount} left in`}
          </p>
          {findings.length > 0 && (
            <fieldset class="handoff-findings small">
              <legend>Secrets found: tick one to leave it in the document</legend>
              <ul>
                {findings.map((f) => (
                  <li key={f.id} data-finding={f.id}>
                    <label class="check">
                      <input
                        type="checkbox"
                        name="handoff-keep"
                        disabled={locked}
                        value={f.id}
                        checked={keep.includes(f.id)}
                        onChange={(e) => toggleKeep(f.id, e.currentTarget.checked)}
                      />{' '}
                      keep this one: {f.kind} <code>{f.masked}</code>
                      {f.item !== undefined && (
                        <span class="muted">
                          {' '}
                          in {f.item_type ?? 'item'}{' '}
                          <code>{f.item.length > 13 ? `${f.item.slice(0, 8)}…` : f.item}</code>
                        </span>
                      )}
                      {f.item === undefined && <span class="muted"> in the title</span>}
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          )}
        </>
      )}
      {tooBig && (
        <p class="err-text small" role="alert">
          The document is larger than one prompt carries ({formatBytes(preview.max_bytes)}): narrow the
          selection.
        </p>
      )}
      {problem && (
        <p class="err-text small" role="alert">
          {problem}
        </p>
      )}
      <div>
        {fellBack === null && (
          <button
            type="submit"
            class="primary small"
            disabled={sending || !agent || (!byAgent && (preview === null || preview.items === 0 || tooBig))}
          >
            {sending ? 'Starting…' : byAgent ? 'Fork and open the chat' : 'Send and open the chat'}
          </button>
        )}{' '}
        <button type="button" class="link small" onClick={onClose}>
          {fellBack === null ? 'Cancel' : 'Close'}
        </button>
      </div>
    </form>
  );
}
