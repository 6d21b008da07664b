// The chunked opening of a chat socket: `session_ready_start`, then `history_chunk`s (messages
// inline, or their JSON array gzipped in base64), then `session_ready_end`. The chunks are put
// back together into the one `session_ready` the state understands; frames that arrive meanwhile
// wait for it, so nothing is applied before the history it follows.
import type { ServerEvent, WireMessage } from './wire.js';

type Frame = Record<string, unknown>;

/** The messages of a gzip-base64 payload. */
export async function gunzipMessages(payload: string): Promise<WireMessage[]> {
  const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const text = await new Response(stream).text();
  const value = JSON.parse(text) as unknown;
  if (!Array.isArray(value)) throw new Error('a history chunk holds no list of messages');
  return value as WireMessage[];
}

export class HistoryAssembler {
  private start: Frame | undefined;
  private readonly chunks = new Map<number, WireMessage[]>();

  get active(): boolean {
    return this.start !== undefined;
  }

  begin(start: Frame): void {
    this.start = start;
    this.chunks.clear();
  }

  /** Takes one chunk; throws when its index is not one of the chunks `session_ready_start` announced,
   * or repeats one already taken (the wire types the index as any number: the range is checked here). */
  async add(chunk: Frame): Promise<void> {
    const total = this.start?.totalChunks;
    const index = chunk.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      throw new Error(`a history chunk has the index ${String(index)}, not a whole number from 0`);
    }
    if (typeof total === 'number' && index >= total) {
      throw new Error(`a history chunk has the index ${index}, past the ${total} chunks announced`);
    }
    if (this.chunks.has(index)) throw new Error(`the history chunk ${index} came twice`);
    const messages = Array.isArray(chunk.messages)
      ? (chunk.messages as WireMessage[])
      : typeof chunk.payload === 'string'
        ? await gunzipMessages(chunk.payload)
        : [];
    this.chunks.set(index, messages);
  }

  /** The whole opening as one `session_ready`; an error when chunks are missing. */
  finish(end: Frame): { ok: true; event: ServerEvent } | { ok: false; message: string } {
    const start = this.start;
    this.start = undefined;
    if (!start) return { ok: false, message: 'the history ended before it started' };
    const history = [...this.chunks.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, m]) => m);
    this.chunks.clear();
    const expected = typeof end.totalMessages === 'number' ? end.totalMessages : start.totalMessages;
    if (typeof expected === 'number' && expected !== history.length) {
      return {
        ok: false,
        message: `the history came in pieces and ${expected - history.length} of its ${expected} messages are missing; reload to try again`,
      };
    }
    const { type: _type, totalChunks: _chunks, totalMessages: _total, ...ready } = start;
    return { ok: true, event: { ...ready, type: 'session_ready', history } as ServerEvent };
  }
}
