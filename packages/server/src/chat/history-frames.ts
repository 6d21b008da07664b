// How a chat socket's opening goes out: one `session_ready` while the history is small, else
// `session_ready_start`, the history in `history_chunk`s, and `session_ready_end`, so that no frame
// grows with the length of the session. The frames are built here and sent back to back by the
// caller, so nothing the session broadcasts can fall between them.
import { gzipSync } from 'node:zlib';

type Frame = { type: string } & Record<string, unknown>;

export interface HistoryLimits {
  /** A history whose JSON is at most this long goes whole in `session_ready`. */
  readonly inlineBytes: number;
  /** A chunk holds messages up to about this much JSON (a longer message goes alone). */
  readonly chunkBytes: number;
  /** And at most this many messages. */
  readonly chunkMessages: number;
  /** A chunk whose JSON is longer than this goes gzipped, in base64. */
  readonly gzipBytes: number;
}

export const HISTORY_LIMITS: HistoryLimits = {
  inlineBytes: 256 * 1024,
  chunkBytes: 256 * 1024,
  chunkMessages: 500,
  gzipBytes: 64 * 1024,
};

/**
 * The frames that open a socket. `ready` is the whole `session_ready` (with its `history`); in the
 * chunked form `session_ready_start` carries every other field of it.
 */
export function historyFrames(ready: Frame & { history: unknown[] }, limits = HISTORY_LIMITS): Frame[] {
  const { history, ...state } = ready;
  const texts = history.map((m) => JSON.stringify(m));
  const length = texts.reduce((sum, t) => sum + t.length + 1, 1);
  if (length <= limits.inlineBytes) return [ready];

  const chunks: { messages: unknown[]; bytes: number }[] = [];
  let current: { messages: unknown[]; bytes: number } | undefined;
  for (const [i, message] of history.entries()) {
    const bytes = texts[i]!.length + 1;
    if (
      !current ||
      current.messages.length >= limits.chunkMessages ||
      (current.messages.length > 0 && current.bytes + bytes > limits.chunkBytes)
    ) {
      current = { messages: [], bytes: 1 };
      chunks.push(current);
    }
    current.messages.push(message);
    current.bytes += bytes;
  }

  const sessionId = ready.sessionId;
  const frames: Frame[] = [
    {
      ...state,
      type: 'session_ready_start',
      totalChunks: chunks.length,
      totalMessages: history.length,
      loadedMessageCount: history.length,
    },
  ];
  for (const [index, chunk] of chunks.entries()) {
    const base = { type: 'history_chunk', sessionId, index, total: chunks.length };
    if (chunk.bytes <= limits.gzipBytes) {
      frames.push({ ...base, messages: chunk.messages });
      continue;
    }
    const zipped = gzipSync(Buffer.from(JSON.stringify(chunk.messages)));
    frames.push({ ...base, encoding: 'gzip-base64', payload: zipped.toString('base64') });
  }
  frames.push({ type: 'session_ready_end', sessionId, totalMessages: history.length });
  return frames;
}
