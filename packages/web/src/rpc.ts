// The one WebSocket a tab keeps to the server: control ops as request/response, and topic frames
// routed to their subscribers. It greets with `hello`, reconnects with a growing delay, and on each
// reconnect greets again and re-subscribes every topic from where its subscriber says it is.
import {
  type ErrorBody,
  type HelloResult,
  type OpArgs,
  type OpName,
  type OpResult,
  PROTOCOL_VERSION,
} from '@cairn/protocol';
import { checkResponse } from './wire-check.js';

export type Reply<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };
/** `refused`: the server is there but does not take the token this page holds. */
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'refused';

/** One topic a view follows. `resume` gives the extra `topic_subscribe` arguments (a cursor) that
 * continue exactly after what the subscriber already holds. */
export interface TopicHandlers {
  readonly topic: string;
  resume?(): Record<string, unknown>;
  /** Whether a frame belongs here (session stream frames name a session). */
  accepts(frame: Record<string, unknown>): boolean;
  onFrame(frame: Record<string, unknown>): void;
  /** The subscribe request was answered; `ok: false` carries why it was refused. */
  onSubscribed?(reply: Reply<unknown>): void;
}

interface Pending {
  readonly op: OpName;
  readonly resolve: (reply: Reply<unknown>) => void;
  readonly validate: boolean;
}

// Spectral's reconnect ladder, shortened at the start so a restarted server is found quickly.
const BACKOFF_MS = [300, 1000, 2000, 5000, 15_000, 30_000];

const CLIENT_VERSION = 'cairn-web 0.1.0';

export interface RequestOptions {
  /** Check the reply against the op's schema (on by default). */
  readonly validate?: boolean;
}

export class Connection {
  state: ConnectionState = 'connecting';
  hello: HelloResult | undefined;
  private ws: WebSocket | undefined;
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly waiting: (() => void)[] = [];
  private readonly topics = new Set<TopicHandlers>();
  private readonly listeners = new Set<(state: ConnectionState) => void>();
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closedByUs = false;

  /** `token` is asked again for every socket (another tab may have stored a newer one) and goes on
   * it as a subprotocol; the server picks `cairn`, the other name. */
  constructor(
    private readonly url: string,
    private readonly token: () => string | undefined = () => undefined,
  ) {
    this.open();
  }

  /** Sends `op` once the connection is greeted; the reply is a value, failures included. */
  request<Op extends OpName>(
    op: Op,
    args: OpArgs<Op>,
    options: RequestOptions = {},
  ): Promise<Reply<OpResult<Op>>> {
    return new Promise((resolve) => {
      const send = () =>
        this.send(op, args as Record<string, unknown>, resolve as (r: Reply<unknown>) => void, options);
      if (this.state === 'open') send();
      else this.waiting.push(send);
    });
  }

  /** Follows a topic until the returned function is called; survives reconnects. */
  subscribe(handlers: TopicHandlers): () => void {
    this.topics.add(handlers);
    if (this.state === 'open') this.sendSubscribe(handlers);
    return () => {
      if (!this.topics.delete(handlers)) return;
      if (this.state === 'open' && ![...this.topics].some((t) => t.topic === handlers.topic)) {
        void this.request('topic_unsubscribe', { topic: handlers.topic } as OpArgs<'topic_unsubscribe'>);
      }
    };
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closedByUs = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }

  private open(): void {
    // A refused token stays on screen while the ladder keeps trying (with whatever token is stored).
    if (this.state !== 'refused') this.setState('connecting');
    const ws = new WebSocket(this.url, socketProtocols(this.token()));
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.greet();
    };
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = () => this.lost(ws, opened);
  }

  /** A socket refused before it opened gives no reason; the liveness check with the same token does. */
  private async checkRefused(): Promise<void> {
    try {
      const res = await authorizedFetch('alive', {}, this.token());
      if (res.status === 401 && this.state !== 'open' && !this.closedByUs) this.setState('refused');
    } catch {
      // The server is away: the state stays `closed` while the ladder keeps trying.
    }
  }

  private greet(): void {
    const args = { role: 'user', protocol_version: PROTOCOL_VERSION, client_version: CLIENT_VERSION };
    this.send('hello', args, (reply) => {
      if (!reply.ok) {
        // A server that will not greet us will not serve us either; keep retrying slowly.
        this.ws?.close();
        return;
      }
      this.hello = reply.value as HelloResult;
      this.attempt = 0;
      this.setState('open');
      for (const t of this.topics) this.sendSubscribe(t);
      for (const send of this.waiting.splice(0)) send();
    });
  }

  private sendSubscribe(t: TopicHandlers): void {
    const args = { topic: t.topic, ...(t.resume?.() ?? {}) };
    this.send('topic_subscribe', args, (reply) => t.onSubscribed?.(reply), {});
  }

  private send(
    op: OpName,
    args: Record<string, unknown>,
    resolve: (reply: Reply<unknown>) => void,
    options: RequestOptions = {},
  ): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      resolve({ ok: false, error: { code: 'internal_error', message: 'not connected to the server' } });
      return;
    }
    const request_id = `w${this.nextId++}`;
    this.pending.set(request_id, { op, resolve, validate: options.validate !== false });
    ws.send(JSON.stringify({ request_id, op, ...args }));
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return;
    const f = frame as Record<string, unknown>;
    const id = f.request_id;
    if (typeof id === 'string' && typeof f.ok === 'boolean' && this.pending.has(id)) {
      const p = this.pending.get(id)!;
      this.pending.delete(id);
      p.resolve(this.reply(p, f));
      return;
    }
    for (const t of this.topics) if (t.accepts(f)) t.onFrame(f);
  }

  private reply(p: Pending, f: Record<string, unknown>): Reply<unknown> {
    if (f.ok === false) {
      const error = f.error as ErrorBody | undefined;
      return {
        ok: false,
        error: error ?? { code: 'internal_error', message: 'the server refused without a reason' },
      };
    }
    if (p.validate) {
      const checked = checkResponse(p.op, f);
      if (!checked.ok) {
        const message = `the reply to ${p.op} breaks the contract: ${checked.message}`;
        return { ok: false, error: { code: 'internal_error', message, field: checked.field } };
      }
    }
    // Replies carry their result beside the envelope fields.
    const { ok: _ok, request_id: _id, ...value } = f;
    return { ok: true, value };
  }

  private lost(ws: WebSocket, opened: boolean): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    for (const [, p] of this.pending)
      p.resolve({ ok: false, error: { code: 'internal_error', message: 'connection lost' } });
    this.pending.clear();
    if (this.closedByUs) {
      this.setState('closed');
      return;
    }
    if (this.state !== 'refused') this.setState('closed');
    if (!opened) void this.checkRefused();
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt++;
    this.timer = setTimeout(() => this.open(), delay);
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    for (const l of this.listeners) l(state);
  }
}

/** The WebSocket address beside the page. The token never goes in it (see `socketProtocols`). */
export function socketUrl(location: Location): string {
  const url = new URL('ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = '';
  return url.toString();
}

/** The subprotocols a socket offers: `cairn`, which the server picks, and one that carries the token. */
export const socketProtocols = (token: string | undefined): string[] =>
  token ? ['cairn', `cairn.token.${token}`] : ['cairn'];

/** Where the page keeps the token: its origin's storage, which no other port's page can read. */
export const TOKEN_KEY = 'cairn.token';

/**
 * The token this page shows the server. One in the address (the URL `cairn serve` printed) is kept
 * in the origin's storage and taken out of the address bar and the history entry; without one,
 * the token kept from an earlier visit. Storage is per origin (scheme, host and port), unlike a
 * cookie, which a browser sends to every port of the host.
 */
export function takeToken(
  location: Location,
  storage: Storage | undefined,
  history: History,
): string | undefined {
  const params = new URLSearchParams(location.search);
  const offered = params.get('token');
  if (offered) {
    try {
      storage?.setItem(TOKEN_KEY, offered);
    } catch {
      // Storage refused (a private window with none): the token lives for this page only.
    }
    params.delete('token');
    const search = params.toString();
    history.replaceState(
      history.state,
      '',
      `${location.pathname}${search ? `?${search}` : ''}${location.hash}`,
    );
    return offered;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

let pageToken: () => string | undefined = () => undefined;

/** Sets where `authorizedFetch` finds the token; the entry point calls it once. */
export function setPageToken(token: () => string | undefined): void {
  pageToken = token;
}

/** The token the page holds now, for a socket of its own. */
export const currentPageToken = (): string | undefined => pageToken();

/** `fetch` of one of the server's own resources, with the page's token in the Authorization header. */
export function authorizedFetch(
  url: string,
  init: RequestInit = {},
  token: string | undefined = pageToken(),
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers, credentials: 'omit' });
}

/** Downloads one of the server's resources as `name`: a plain link could not carry the token. */
export async function authorizedDownload(url: string, name: string): Promise<void> {
  const res = await authorizedFetch(url);
  if (!res.ok) throw new Error(`the server answered ${res.status}`);
  const blob = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = blob;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(blob), 10_000);
}
