// One chat session's socket (`/chat?session=<id>`): it carries the token as the page's other socket
// does, folds every frame into the session's state, and on a dropped connection tries again with a
// growing delay; the server's `session_ready` then rebuilds the state whole.
import { authorizedFetch, socketProtocols } from '../rpc.js';
import { checkChatEvent } from '../wire-check.js';
import { HistoryAssembler } from './chunks.js';
import { type ChatState, disconnected, initialChatState, reduceChat } from './state.js';
import type { ClientMessage, ServerEvent } from './wire.js';

/** `missing`: the server knows no such chat session; `refused`: it does not take the page's token. */
export type ChatSocketState = 'connecting' | 'open' | 'closed' | 'missing' | 'refused';

const BACKOFF_MS = [300, 1000, 2000, 5000, 15_000];

/** The chat socket's address beside the page. */
export function chatSocketUrl(location: Location, sessionId: string): string {
  const url = new URL('chat', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = new URLSearchParams({ session: sessionId }).toString();
  return url.toString();
}

export class ChatSocket {
  state: ChatState;
  socketState: ChatSocketState = 'connecting';
  private ws: WebSocket | undefined;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly listeners = new Set<() => void>();
  private queue: Promise<void> = Promise.resolve();
  private history = new HistoryAssembler();
  private held: ServerEvent[] = [];

  constructor(
    readonly sessionId: string,
    private readonly url: string,
    private readonly token: () => string | undefined,
  ) {
    this.state = initialChatState(sessionId);
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.flushTimer);
    this.ws?.close();
    this.ws = undefined;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a message when the session is ready; false when it could not go. */
  send(message: ClientMessage): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.state.ready) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  private open(): void {
    // A refused token stays on screen while the ladder keeps trying.
    if (this.socketState !== 'refused') this.socketState = 'connecting';
    const ws = new WebSocket(this.url, socketProtocols(this.token()));
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.socketState = 'open';
      this.changed(true);
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws || typeof e.data !== 'string') return;
      let frame: unknown;
      try {
        frame = JSON.parse(e.data);
      } catch {
        return;
      }
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return;
      const f = frame as Record<string, unknown>;
      // Frames are taken one after the other: a gzipped history chunk is unpacked before the next.
      this.queue = this.queue
        .then(() => (this.ws === ws ? this.take(f) : undefined))
        .catch((error: unknown) => {
          this.fold({ type: 'error', message: `A frame could not be shown: ${(error as Error).message}` });
        });
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.history = new HistoryAssembler();
      this.held = [];
      this.socketState = 'closed';
      this.state = disconnected(this.state);
      this.changed(true);
      if (this.stopped) return;
      if (opened) this.retry();
      else void this.probe();
    };
  }

  private async take(frame: Record<string, unknown>): Promise<void> {
    const checked = checkChatEvent(frame);
    // A frame that breaks the contract is shown as the fault it is, never acted on.
    if (!checked.ok) {
      this.fold({
        type: 'error',
        message: `The server sent a frame that breaks the contract: ${checked.message}`,
      });
      return;
    }
    const type = frame.type;
    if (type === 'session_ready_start') {
      this.history.begin(frame);
      return;
    }
    if (type === 'history_chunk' && this.history.active) {
      try {
        await this.history.add(frame);
      } catch (error) {
        this.fold({
          type: 'error',
          message: `A piece of the history could not be read: ${(error as Error).message}`,
        });
      }
      return;
    }
    if (type === 'session_ready_end') {
      const done = this.history.finish(frame);
      this.fold(done.ok ? done.event : { type: 'error', message: done.message });
      for (const held of this.held.splice(0)) this.fold(held);
      return;
    }
    // What comes while the history is still arriving follows it.
    if (this.history.active) this.held.push(frame as ServerEvent);
    else this.fold(frame as ServerEvent);
  }

  private fold(event: ServerEvent): void {
    this.state = reduceChat(this.state, event);
    this.changed();
  }

  private retry(): void {
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt++;
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** A socket refused before it opened gives no reason: the session list says whether the session
   * is there and the token taken. A server that is away is tried again. */
  private async probe(): Promise<void> {
    try {
      const res = await authorizedFetch('api/sessions', {}, this.token());
      if (this.stopped) return;
      if (res.status === 401) {
        this.socketState = 'refused';
      } else if (res.ok) {
        const body = (await res.json()) as { sessions?: { id?: unknown }[] };
        if (Array.isArray(body.sessions) && !body.sessions.some((s) => s.id === this.sessionId)) {
          this.socketState = 'missing';
          this.changed(true);
          return;
        }
      }
    } catch {
      // The server is away; the ladder keeps trying.
    }
    if (this.stopped) return;
    this.changed(true);
    this.retry();
  }

  // Deltas arrive far faster than a screen redraws: listeners hear of them once per frame or so.
  private changed(now = false): void {
    if (now) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      for (const l of this.listeners) l();
      return;
    }
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const l of this.listeners) l();
    }, 16);
  }
}
