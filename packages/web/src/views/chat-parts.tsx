// The pieces of a conversation: the user's prompts, the agent's replies (Markdown, folded thinking,
// tool calls with their status and results), notices, and per-message usage. Everything the agent
// wrote is untrusted: text, or Markdown sanitized into inert DOM.
import { memo } from 'preact/compat';
import type { AssistantEntry, Entry, MessageUsage, Part, PermissionCard } from '../chat/state.js';
import type { ClientMessage, ImageAttachment } from '../chat/wire.js';
import { formatCount, formatDuration } from '../format.js';
import { imageDataUrl } from '../timeline/images.js';
import { isObject } from '../timeline/item.js';
import { PermissionView } from './chat-cards.js';
import { ArgsView, argsSummary, ResultView } from './chat-tool.js';
import { Markdown, TextBlock } from './fold.js';
import { StreamingMarkdown } from './streaming-markdown.js';

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
  if (part.kind === 'text')
    return streaming ? <StreamingMarkdown text={part.text} /> : <Markdown text={part.text} />;
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

export function UsageLine({ usage }: { usage: MessageUsage }) {
  const bits: string[] = [];
  if (usage.inputTokens !== undefined) bits.push(`${formatCount(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) bits.push(`${formatCount(usage.outputTokens)} out`);
  if (usage.ttftMs != null) bits.push(`first token ${formatDuration(usage.ttftMs)}`);
  // The generation window starts at the first token: named as such, it cannot read as the total.
  if (usage.durationMs != null) bits.push(`writing ${formatDuration(usage.durationMs)}`);
  if (usage.tokensPerSecond != null) bits.push(`${usage.tokensPerSecond} tokens/s`);
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
        // Inline bytes go through the reader's one rule (no SVG, base64 only, a size cap).
        const inline = img.data ? imageDataUrl({ mediaType: img.mimeType, data: img.data }) : undefined;
        const src = inline
          ? inline.ok
            ? inline.url
            : undefined
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
