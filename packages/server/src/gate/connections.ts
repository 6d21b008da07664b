// How many sockets the daemon holds at once and how long one may stay without showing the token, so
// that idle or hostile connections cannot use up the process's file descriptors.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Sockets held at once; past it the oldest socket without the token makes room for a new one. */
  readonly maxSockets: number;
  /** How long a socket may stay open before one of its requests carried the token. */
  readonly untrustedMs: number;
}

/** The soft limit on open files, from `/proc/self/limits` where there is one. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Half of the file descriptors for sockets: the other half stays for the index, the session files,
 * the watcher and the workers, which must keep working while sockets pile up.
 */
export function defaultLimits(files = openFileLimit()): ConnectionLimits {
  const maxSockets = files === undefined ? 512 : Math.max(16, Math.min(4096, Math.floor(files / 2)));
  return { maxSockets, untrustedMs: 10_000 };
}

/**
 * Counts the server's sockets. A socket is untrusted until a request on it passed the gate; an
 * untrusted one is closed when its time is up, and the oldest untrusted one is closed when a new
 * socket would pass the cap. When every socket is trusted the newcomer is the one refused.
 */
export class ConnectionGuard {
  /** In the order they connected: the first is the oldest. */
  private readonly untrusted = new Map<Socket, NodeJS.Timeout>();
  private readonly trusted = new Set<Socket>();
  /** Sockets closed to make room or because their time was up. */
  dropped = 0;

  constructor(
    server: Server,
    readonly limits: ConnectionLimits = defaultLimits(),
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  get size(): number {
    return this.untrusted.size + this.trusted.size;
  }

  /** A request without the token (the page, its scripts) arrived: an untrusted socket's time starts
   * again, so a browser's connection is never cut in the middle of loading the page. */
  active(socket: Socket): void {
    this.untrusted.get(socket)?.refresh();
  }

  /** A request on `socket` carried the token: it stays for as long as HTTP or WebSocket keep it. */
  trust(socket: Socket): void {
    const timer = this.untrusted.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.untrusted.delete(socket);
    this.trusted.add(socket);
  }

  private admit(socket: Socket): void {
    if (this.size >= this.limits.maxSockets) {
      const oldest = this.untrusted.keys().next();
      if (oldest.done) {
        this.dropped++;
        socket.destroy();
        return;
      }
      this.drop(oldest.value);
    }
    const timer = setTimeout(() => this.drop(socket), this.limits.untrustedMs);
    timer.unref();
    this.untrusted.set(socket, timer);
    socket.once('close', () => this.forget(socket));
  }

  private drop(socket: Socket): void {
    this.dropped++;
    this.forget(socket);
    socket.destroy();
  }

  private forget(socket: Socket): void {
    const timer = this.untrusted.get(socket);
    if (timer !== undefined) clearTimeout(timer);
    this.untrusted.delete(socket);
    this.trusted.delete(socket);
  }
}
