// The composer: Enter sends (the server queues a message sent while the agent works), Shift+Enter
// starts a new line; Queue, Steer and Stop beside it; images pasted or dropped where the agent takes
// them; and the loop and interval controls. `/` at the start lists the agent's commands, `@`
// completes the project's files (sent along with the prompt), ↑ and ↓ recall earlier prompts.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { listProjectFiles } from '../chat/api.js';
import {
  applyCompletion,
  commandText,
  completionAt,
  earlierPrompts,
  fileMention,
  matchingCommands,
  mentionedFiles,
  NO_RECALL,
  type Recall,
  recallStep,
} from '../chat/composer-assist.js';
import { type ChatState, isBusy } from '../chat/state.js';
import { type ClientMessage, type ImageAttachment, MAX_INLINE_IMAGE_BASE64_CHARS } from '../chat/wire.js';
import { formatBytes } from '../format.js';
import { Thumbs } from './chat-parts.js';
import { optionId, SUGGESTIONS_ID, type Suggestion, Suggestions } from './composer-suggestions.js';

export interface ComposerProps {
  readonly state: ChatState;
  /** Sends a message; false when the session is not connected. */
  send(message: ClientMessage): boolean;
}

const IMAGE_TYPE = /^image\/(png|jpeg|gif|webp)$/;

/** Base64 of a file, without the data URI prefix. */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result ?? '');
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}

export function Composer({ state, send }: ComposerProps) {
  const [text, setText] = useState('');
  const [images, setImages] = useState<ImageAttachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [loop, setLoop] = useState(false);
  const [loopMax, setLoopMax] = useState('');
  const [every, setEvery] = useState('');
  const [caret, setCaret] = useState(0);
  /** Files chosen with `@`; those the text still mentions go with the prompt. */
  const [chosenFiles, setChosenFiles] = useState<string[]>([]);
  const [files, setFiles] = useState<{ query: string; paths: string[]; error?: string } | null>(null);
  const [active, setActive] = useState(0);
  /** Escape closed the list for the word starting here; it opens again for another word. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [recall, setRecall] = useState<Recall>(NO_RECALL);
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = isBusy(state);
  const connected = state.ready;

  const prompts = useMemo(
    () => earlierPrompts(state.entries.flatMap((e) => (e.kind === 'user' ? [e.content] : []))),
    [state.entries],
  );
  const completion = completionAt(text, caret);
  const open = completion !== null && completion.start !== dismissedAt;
  const fileQuery = open && completion.kind === 'file' ? completion.query : null;
  useEffect(() => {
    if (fileQuery === null || !state.sessionId) return;
    let current = true;
    void listProjectFiles(state.sessionId, fileQuery).then((answer) => {
      if (!current) return;
      setFiles(
        answer.ok
          ? { query: fileQuery, paths: answer.value.files }
          : { query: fileQuery, paths: [], error: answer.error },
      );
    });
    return () => {
      current = false;
    };
  }, [fileQuery, state.sessionId]);

  const suggestions: Suggestion[] = !open
    ? []
    : completion.kind === 'command'
      ? matchingCommands(state.availableCommands, completion.query).map((command) => ({
          kind: 'command' as const,
          command,
        }))
      : files?.query === completion.query
        ? files.paths.map((path) => ({ kind: 'file' as const, path }))
        : [];
  const highlighted = Math.min(active, Math.max(0, suggestions.length - 1));
  const emptyNote = !open
    ? null
    : completion.kind === 'command'
      ? state.availableCommands.length === 0
        ? `${state.agent ?? 'The agent'} has announced no commands yet.`
        : 'No command matches.'
      : files?.query !== completion.query
        ? null
        : (files.error ?? 'No file of the project matches.');

  const edit = (value: string, at: number) => {
    setText(value);
    setCaret(at);
    setActive(0);
    // Escape closed one list; the next `/` or `@` opens it again.
    if (completionAt(value, at) === null) setDismissedAt(null);
  };

  /** Puts the caret at `caret` once the box shows `shown`; not if the person typed on meanwhile,
   * which would send their next keys back to where the caret was set. */
  const placeCaret = (shown: string, caret: number) =>
    requestAnimationFrame(() => {
      const el = box.current;
      if (el && el.value === shown) el.setSelectionRange(caret, caret);
    });

  const choose = (index: number) => {
    const item = suggestions[index];
    if (!item || !completion) return;
    const insert = item.kind === 'command' ? commandText(item.command) : fileMention(item.path);
    const next = applyCompletion(text, completion, insert);
    if (item.kind === 'file') setChosenFiles((old) => (old.includes(item.path) ? old : [...old, item.path]));
    edit(next.text, next.caret);
    setDismissedAt(null);
    // The caret after the inserted word, once the box shows the new text.
    placeCaret(next.text, next.caret);
  };

  /** Keys the open list or the recall takes; true when the key was used. */
  const assistKey = (e: KeyboardEvent): boolean => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return false;
    if (open && suggestions.length > 0) {
      switch (e.key) {
        case 'ArrowDown':
          setActive((highlighted + 1) % suggestions.length);
          return true;
        case 'ArrowUp':
          setActive((highlighted - 1 + suggestions.length) % suggestions.length);
          return true;
        case 'Enter':
        case 'Tab':
          if (e.shiftKey) return false;
          choose(highlighted);
          return true;
      }
    }
    if (open && e.key === 'Escape') {
      setDismissedAt(completion.start);
      return true;
    }
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && !e.shiftKey) {
      const step = recallStep(prompts, recall, text, e.key === 'ArrowUp' ? 'back' : 'forward');
      if (!step) return false;
      setRecall(step.recall);
      edit(step.text, step.text.length);
      placeCaret(step.text, step.text.length);
      return true;
    }
    return false;
  };

  const attach = async (files: readonly File[]) => {
    const wanted = files.filter((f) => f.type.startsWith('image/'));
    if (wanted.length === 0) return;
    if (!state.supportsImageInput) {
      setProblem(`${state.agent ?? 'This agent'} does not take images: the image was not attached.`);
      return;
    }
    const added: ImageAttachment[] = [];
    for (const f of wanted) {
      if (!IMAGE_TYPE.test(f.type)) {
        setProblem(`${f.name || 'The image'} is ${f.type}: only PNG, JPEG, GIF and WebP images can be sent.`);
        continue;
      }
      const data = await readBase64(f);
      if (data.length > MAX_INLINE_IMAGE_BASE64_CHARS) {
        setProblem(
          `${f.name || 'The image'} is too large to send (${formatBytes(f.size)}; at most ${formatBytes(
            Math.floor((MAX_INLINE_IMAGE_BASE64_CHARS * 3) / 4),
          )}).`,
        );
        continue;
      }
      added.push({ data, mimeType: f.type });
    }
    if (added.length > 0) {
      setImages((old) => [...old, ...added]);
      if (added.length === wanted.length) setProblem(null);
    }
  };

  const clear = () => {
    setText('');
    setCaret(0);
    setImages([]);
    setChosenFiles([]);
    setRecall(NO_RECALL);
    setDismissedAt(null);
    setProblem(null);
  };

  const notConnected = () => setProblem('Not connected to the session: the message is kept here.');

  const sendMessage = () => {
    const content = text.trim();
    if (content === '' && images.length === 0) return;
    const message: ClientMessage = { type: 'user_message', content };
    if (images.length > 0) message.images = images;
    const attached = mentionedFiles(content, chosenFiles);
    if (attached.length > 0) message.files = attached;
    if (loop) {
      message.loop = true;
      const n = Number(loopMax);
      if (Number.isInteger(n) && n > 0) message.loopMaxIterations = n;
    }
    const minutes = Number(every);
    if (every !== '' && Number.isFinite(minutes) && minutes > 0) message.intervalMinutes = minutes;
    if (send(message)) clear();
    else notConnected();
  };

  const steer = () => {
    const content = text.trim();
    if (content === '') return;
    const message: ClientMessage = { type: 'steer', content };
    if (images.length > 0) message.images = images;
    if (send(message)) clear();
    else notConnected();
  };

  return (
    <form
      class={`composer ${busy ? 'composer-busy' : ''}`}
      data-busy={busy ? 'yes' : 'no'}
      onSubmit={(e) => {
        e.preventDefault();
        sendMessage();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
      }}
      onDrop={(e) => {
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length === 0) return;
        e.preventDefault();
        void attach(files);
      }}
    >
      {open && (
        <Suggestions
          items={suggestions}
          active={highlighted}
          label={completion.kind === 'command' ? 'Commands' : 'Project files'}
          empty={emptyNote}
          choose={choose}
        />
      )}
      <textarea
        ref={box}
        aria-label="Message"
        aria-autocomplete="list"
        aria-controls={open && suggestions.length > 0 ? SUGGESTIONS_ID : undefined}
        aria-activedescendant={open && suggestions.length > 0 ? optionId(highlighted) : undefined}
        name="message"
        rows={3}
        placeholder={
          busy
            ? 'The agent is working: Enter queues the message'
            : 'Message the agent (Shift+Enter for a new line)'
        }
        value={text}
        onInput={(e) => edit(e.currentTarget.value, e.currentTarget.selectionStart)}
        onKeyUp={(e) => {
          if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') setCaret(e.currentTarget.selectionStart);
        }}
        onClick={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={(e) => {
          if (assistKey(e)) {
            e.preventDefault();
            return;
          }
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            sendMessage();
          }
        }}
        onPaste={(e) => {
          const files = [...(e.clipboardData?.files ?? [])];
          if (files.some((f) => f.type.startsWith('image/'))) {
            e.preventDefault();
            void attach(files);
          }
        }}
      />
      {images.length > 0 && (
        <div class="attachments">
          <Thumbs images={images} />
          <button type="button" class="link small" onClick={() => setImages([])}>
            remove images
          </button>
        </div>
      )}
      {problem && (
        <p class="composer-problem err-text small" role="alert">
          {problem}
        </p>
      )}
      <div class="composer-actions">
        <button type="submit" class="primary" disabled={!connected}>
          Send
        </button>
        <button
          type="button"
          disabled={!connected}
          title="add the message to the queue: it goes out when the agent is done"
          onClick={sendMessage}
        >
          Queue
        </button>
        <button
          type="button"
          disabled={!connected || !busy}
          title={
            state.supportsSteering
              ? 'tell the agent now, while it works'
              : 'this agent takes no steering: the message is queued instead'
          }
          onClick={steer}
        >
          Steer
        </button>
        <button
          type="button"
          class="danger"
          disabled={!connected || !busy}
          onClick={() => send({ type: 'stop' })}
        >
          Stop
        </button>
        <span class="spacer" />
        <label class="check small">
          <input type="checkbox" checked={loop} onChange={(e) => setLoop(e.currentTarget.checked)} />
          Loop
        </label>
        {loop && (
          <label class="small">
            at most{' '}
            <input
              type="number"
              min={1}
              class="narrow"
              aria-label="Loop iterations"
              value={loopMax}
              onInput={(e) => setLoopMax(e.currentTarget.value)}
            />{' '}
            times
          </label>
        )}
        <label class="small">
          every{' '}
          <input
            type="number"
            min={1}
            class="narrow"
            aria-label="Interval in minutes"
            value={every}
            onInput={(e) => setEvery(e.currentTarget.value)}
          />{' '}
          min
        </label>
        {state.interval?.active && (
          <>
            <button
              type="button"
              class="small"
              onClick={() => send({ type: 'user_message', content: '', loopControl: 'run_now' })}
            >
              Run now
            </button>
            <button
              type="button"
              class="small"
              onClick={() => send({ type: 'user_message', content: '', loopControl: 'stop' })}
            >
              End interval
            </button>
          </>
        )}
      </div>
    </form>
  );
}
