// The composer: Enter sends (the server queues a message sent while the agent works), Shift+Enter
// starts a new line; Queue, Steer and Stop beside it; images pasted or dropped where the agent takes
// them; and the loop and interval controls.
import { useState } from 'preact/hooks';
import { type ChatState, isBusy } from '../chat/state.js';
import { type ClientMessage, type ImageAttachment, MAX_INLINE_IMAGE_BASE64_CHARS } from '../chat/wire.js';
import { formatBytes } from '../format.js';
import { Thumbs } from './chat-parts.js';

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
  const busy = isBusy(state);
  const connected = state.ready;

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
    setImages([]);
    setProblem(null);
  };

  const notConnected = () => setProblem('Not connected to the session: the message is kept here.');

  const sendMessage = () => {
    const content = text.trim();
    if (content === '' && images.length === 0) return;
    const message: ClientMessage = { type: 'user_message', content };
    if (images.length > 0) message.images = images;
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
      <textarea
        aria-label="Message"
        name="message"
        rows={3}
        placeholder={
          busy
            ? 'The agent is working: Enter queues the message'
            : 'Message the agent (Shift+Enter for a new line)'
        }
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
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
