// The pieces of a conversation: the user's prompts, the agent's replies (Markdown, folded thinking,
// tool calls with their status and results), notices, and per-message usage. Everything the agent
// wrote is untrusted: text, or Markdown sanitized into inert DOM.
import type { JSX } from 'preact';
import { memo } from 'preact/compat';
import type { AssistantEntry, Entry, MessageUsage, Part, PermissionCard } from '../chat/state.js';
import type { ClientMessage, ImageAttachment } from '../chat/wire.js';
import { formatCount, formatDuration } from '../format.js';
import { diffLines, trimContext } from '../timeline/diff.js';
import { editPairs, firstLine, isObject, textOf } from '../timeline/item.js';
import { PermissionView } from './chat-cards.js';
import { Markdown, TextBlock } from './fold.js';
import { DiffView, PatchView } from './rows.js';

type Loose = Record<string, unknown>;
type ToolPart = Extract<Part, { kind: 'tool' }>;

export interface EntryProps {
  readonly entry: Entry;
  /** The permission requests of this message's tool calls, shown under their calls. */
  readonly cards: readonly PermissionCard[];
  readonly send: (m: ClientMessage) => boolean;
}

export const EntryView = memo(function EntryView({ entry, cards, send }: EntryProps) {
  if (entry.kind === 'user') {
    return (
      <div class="chat-msg chat-user" data-id={entry.id}>
        <div class="who">You</div>
        <TextBlock text={entry.content} className="prompt-text" />
        {entry.images.length > 0 && <Thumbs images={entry.images} />}
      </div>
    );
  }
  if (entry.kind === 'notice') {
    return (
      <div
        class={`chat-notice ${entry.level === 'error' ? 'err' : ''}`}
        role={entry.level === 'error' ? 'alert' : undefined}
      >
        {entry.text}
      </div>
    );
  }
  return <AssistantView m={entry} cards={cards} send={send} />;
});

function AssistantView({
  m,
  cards,
  send,
}: {
  m: AssistantEntry;
  cards: readonly PermissionCard[];
  send: (m: ClientMessage) => boolean;
}) {
  return (
    <div
      class={`chat-msg chat-assistant ${m.streaming ? 'streaming' : ''}`}
      data-id={m.id}
      data-streaming={m.streaming ? 'yes' : 'no'}
    >
      <div class="who">Assistant</div>
      {m.parts.map((p, i) =>
        p.kind === 'tool' ? (
          <div key={`tool-${p.id}`} class="tool-with-cards">
            <PartView part={p} streaming={m.streaming} />
            {cards
              .filter((c) => c.toolCall.id === p.id)
              .map((c) => (
                <PermissionView key={c.requestId} card={c} send={send} />
              ))}
          </div>
        ) : (
          <PartView key={`${p.kind}-${i}`} part={p} streaming={m.streaming} />
        ),
      )}
      {m.streaming && m.parts.length === 0 && <p class="muted small waiting">waiting for the first token…</p>}
      {m.errorMessage && (
        <p class="chat-error" role="alert">
          {m.errorMessage}
        </p>
      )}
      {!m.streaming && m.stopReason && m.stopReason !== 'stop' && m.stopReason !== 'end_turn' && (
        <p class="muted small stop-reason">ended: {m.stopReason}</p>
      )}
      {m.usage && <UsageLine usage={m.usage} />}
    </div>
  );
}

function PartView({ part, streaming }: { part: Part; streaming: boolean }) {
  if (part.kind === 'text') return <Markdown text={part.text} />;
  if (part.kind === 'thinking') {
    const words = part.text.split(/\s+/).filter((w) => w !== '').length;
    return (
      <details class="thinking-fold">
        <summary class="muted">
          {part.open ? 'Thinking…' : 'Thinking'} · {words} words
        </summary>
        <TextBlock text={part.text} className="thinking-text" />
      </details>
    );
  }
  return <ToolView part={part} streaming={streaming} />;
}

function toolStatus(part: ToolPart, streaming: boolean): 'running' | 'ok' | 'err' | 'unfinished' {
  if (part.done) return part.isError ? 'err' : 'ok';
  return streaming ? 'running' : 'unfinished';
}

const STATUS_TEXT = { running: 'running…', ok: 'done', err: 'failed', unfinished: 'no result' } as const;
const STATUS_CLASS = { running: 'pending', ok: 'ok', err: 'err', unfinished: 'pending' } as const;

function ToolView({ part, streaming }: { part: ToolPart; streaming: boolean }) {
  const status = toolStatus(part, streaming);
  const args = isObject(part.args) ? part.args : undefined;
  return (
    <details class="chat-tool" data-tool={part.id} data-status={status}>
      <summary>
        <span class={`badge tool status-${STATUS_CLASS[status]}`}>{part.name || 'tool'}</span>{' '}
        <span class="call-line">{argsSummary(args)}</span>
        <span class={`muted small tool-status ${status === 'err' ? 'err-text' : ''}`}>
          {' '}
          · {STATUS_TEXT[status]}
        </span>
      </summary>
      <div class="fold-body">
        <ArgsView args={part.args} />
        {part.done && <ResultView result={part.result} isError={part.isError === true} />}
      </div>
    </details>
  );
}

/** A call's one line: its command, its file, or its input in short. */
export function argsSummary(args: Loose | undefined): string {
  if (!args || Object.keys(args).length === 0) return '';
  const cmd = shellLine(args);
  if (cmd !== undefined) return firstLine(cmd, 200);
  const path = args.file_path ?? args.path ?? args.absolute_path ?? args.filePath ?? args.url ?? args.pattern;
  if (typeof path === 'string') return path;
  return firstLine(JSON.stringify(args), 160);
}

function shellLine(args: Loose): string | undefined {
  const c = args.command ?? args.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((p) => typeof p === 'string')) {
    const parts = c as string[];
    if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && parts[1]?.startsWith('-'))
      return parts[2];
    return parts.join(' ');
  }
  return undefined;
}

function patchIn(args: Loose): string | undefined {
  for (const v of Object.values(args)) if (typeof v === 'string' && v.includes('*** Begin Patch')) return v;
  return undefined;
}

function ArgsView({ args }: { args: unknown }) {
  if (args === undefined || args === null) return null;
  if (isObject(args) && Object.keys(args).length === 0) return null;
  if (!isObject(args)) return <TextBlock text={textOf(args) ?? ''} className="json" />;
  const cmd = shellLine(args);
  if (cmd !== undefined) return <TextBlock text={`$ ${cmd}`} className="cmd" />;
  const pairs = editPairs(args);
  if (pairs) {
    return (
      <div class="diffs">
        {pairs.map((p, i) => (
          <DiffView key={i} lines={trimContext(diffLines(p.old, p.new))} />
        ))}
      </div>
    );
  }
  const patch = patchIn(args);
  if (patch) return <PatchView patch={patch} />;
  if (typeof args.content === 'string' && typeof (args.file_path ?? args.path) === 'string') {
    return (
      <div class="diffs">
        <div class="patch-path">{String(args.file_path ?? args.path)}</div>
        <DiffView lines={trimContext(diffLines('', args.content), 0).slice(0, 400)} />
      </div>
    );
  }
  return <TextBlock text={JSON.stringify(args, null, 2)} className="json" />;
}

/** A result in whichever shape the agent gave it: text, content blocks, diffs, or any JSON. */
function ResultView({ result, isError }: { result: unknown; isError: boolean }) {
  const cls = isError ? 'stderr' : 'output';
  if (result === undefined || result === null || result === '') return <p class="muted small">no output</p>;
  if (typeof result === 'string') return <TextBlock text={result} className={cls} />;
  const blocks = Array.isArray(result)
    ? result
    : isObject(result) && Array.isArray(result.content)
      ? result.content
      : undefined;
  if (blocks) {
    const parts: JSX.Element[] = [];
    blocks.forEach((b, i) => {
      if (!isObject(b)) return;
      if (b.type === 'diff' && typeof b.newText === 'string') {
        parts.push(
          <div key={i} class="diffs">
            {typeof b.path === 'string' && <div class="patch-path">{b.path}</div>}
            <DiffView
              lines={trimContext(diffLines(typeof b.oldText === 'string' ? b.oldText : '', b.newText))}
            />
          </div>,
        );
        return;
      }
      const inner = isObject(b.content) ? b.content : b;
      const text = typeof inner.text === 'string' ? inner.text : textOf(inner);
      if (text) parts.push(<TextBlock key={i} text={text} className={cls} />);
    });
    if (parts.length > 0) return <>{parts}</>;
  }
  if (isObject(result)) {
    for (const k of ['output', 'stdout', 'text']) {
      const v = result[k];
      if (typeof v === 'string') return <TextBlock text={v} className={cls} />;
    }
  }
  return <TextBlock text={JSON.stringify(result, null, 2)} className={`json ${cls}`} />;
}

export function UsageLine({ usage }: { usage: MessageUsage }) {
  const bits: string[] = [];
  if (usage.inputTokens !== undefined) bits.push(`${formatCount(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) bits.push(`${formatCount(usage.outputTokens)} out`);
  if (usage.ttftMs != null) bits.push(`first token ${formatDuration(usage.ttftMs)}`);
  if (usage.tokensPerSecond != null) bits.push(`${usage.tokensPerSecond} tokens/s`);
  if (usage.durationMs != null) bits.push(formatDuration(usage.durationMs));
  if (bits.length === 0) return null;
  return (
    <p class="muted small usage-line" title="usage of this message">
      {bits.join(' · ')}
    </p>
  );
}

/** Images the page may show: inline data, or one of the server's own addresses. */
export function Thumbs({ images }: { images: readonly ImageAttachment[] }) {
  return (
    <div class="thumbs">
      {images.map((img, i) => {
        const src = img.data
          ? `data:${img.mimeType};base64,${img.data}`
          : img.url?.startsWith('/')
            ? img.url
            : undefined;
        return src ? (
          <img key={i} class="thumb" src={src} alt={`attachment ${i + 1}`} />
        ) : (
          <span key={i} class="muted small">
            image ({img.mimeType})
          </span>
        );
      })}
    </div>
  );
}
