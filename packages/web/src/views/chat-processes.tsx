// The commands the agent ran in terminals (dev servers, builds, test runs): each with its status and
// the end of its output, and a button that ends one still running. Their output is the agent's and
// the command's, untrusted: shown as text only.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { DevProcess } from '../chat/state.js';
import type { ClientMessage } from '../chat/wire.js';

const STATUS_TEXT: Record<string, string> = {
  running: 'running',
  exited: 'exited',
  killed: 'ended',
  recovered: 'found again',
};

export function DevProcessesView({
  processes,
  send,
}: {
  processes: readonly DevProcess[];
  send: (m: ClientMessage) => boolean;
}) {
  if (processes.length === 0) return null;
  const running = processes.filter((p) => p.status === 'running').length;
  return (
    <section class="chat-processes" aria-label="Dev processes">
      <details open>
        <summary class="small">
          {processes.length} dev process{processes.length === 1 ? '' : 'es'}
          {running > 0 ? ` · ${running} running` : ''}
        </summary>
        <ul class="process-list">
          {processes.map((p) => (
            <ProcessRow key={p.id} process={p} send={send} />
          ))}
        </ul>
      </details>
    </section>
  );
}

function ProcessRow({ process: p, send }: { process: DevProcess; send: (m: ClientMessage) => boolean }) {
  const ended = p.status === 'exited' && p.exitCode !== null ? ` (exit ${p.exitCode})` : '';
  // The newest output is at the bottom: keep it in view as it grows.
  const tail = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    if (tail.current) tail.current.scrollTop = tail.current.scrollHeight;
  }, [p.lastOutputTail]);
  return (
    <li class="process-item" data-id={p.id} data-status={p.status}>
      <div class="process-line">
        <span class={`badge process-${p.status}`}>
          {STATUS_TEXT[p.status] ?? p.status}
          {ended}
        </span>
        <code class="process-command" title={`${p.command}\nin ${p.cwd}`}>
          {p.label}
        </code>
        <span class="spacer" />
        {p.status === 'running' && (
          <button
            type="button"
            class="link small"
            aria-label={`End process ${p.label}`}
            onClick={() => send({ type: 'dev_process_kill', processId: p.id })}
          >
            End
          </button>
        )}
      </div>
      {p.lastOutputTail !== '' && <pre class="process-tail">{p.lastOutputTail}</pre>}
    </li>
  );
}
