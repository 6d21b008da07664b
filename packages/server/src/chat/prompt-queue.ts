// A chat session's queue: the prompts that wait while a turn runs, each with the project files it
// names (kept off the rows the tabs see), and the one queue_changed a burst of edits sends.
import { randomUUID } from 'node:crypto';
import type { Clock, Event } from './chat-deps.js';
import type { ImageRow } from './chat-store.js';
import type { RunFlags } from './run-state.js';

/** The most prompts a session's queue holds; one more is refused with a message. */
export const MAX_QUEUE = 50;

export interface QueueItem {
  id: string;
  content: string;
  images?: ImageRow[];
  position: number;
  createdAt: string;
}

export const queueFull = () =>
  `The queue is full (${MAX_QUEUE} messages at most): this message was not queued. Send it once the queue has room.`;

export class PromptQueue {
  private readonly queue: QueueItem[] = [];
  /** The files of queued prompts, by queue id: kept off the queue's rows, which the tabs see. */
  private readonly queuedFiles = new Map<string, string[]>();
  /** The queue_changed of this macrotask's edits, sent once they are done. */
  private queueFlush: NodeJS.Immediate | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly broadcast: (event: Event) => void,
    private readonly setFlags: (changes: Partial<RunFlags>) => void,
  ) {}

  get length(): number {
    return this.queue.length;
  }

  /** The queue as the tabs get it. */
  rows(): QueueItem[] {
    return this.queue.map((q) => ({ ...q }));
  }

  remove(id: unknown): void {
    this.editQueue(() => {
      const at = this.queue.findIndex((q) => q.id === id);
      if (at >= 0) this.queue.splice(at, 1);
      this.queuedFiles.delete(String(id));
    });
  }

  edit(id: unknown, content: unknown): void {
    this.editQueue(() => {
      const item = this.queue.find((q) => q.id === id);
      if (item) item.content = String(content);
    });
  }

  clear(): void {
    this.editQueue(() => {
      this.queue.length = 0;
      this.queuedFiles.clear();
    });
  }

  /** The first prompt and its files, taken off the queue. */
  takeNext(): { item: QueueItem; files: string[] } | undefined {
    const next = this.queue[0];
    if (!next) return undefined;
    this.editQueue(() => this.queue.shift());
    const files = this.queuedFiles.get(next.id) ?? [];
    this.queuedFiles.delete(next.id);
    return { item: next, files };
  }

  /** A full queue refuses the message, and the tabs are told. */
  enqueue(content: string, images?: ImageRow[], files?: string[]): void {
    if (this.queue.length >= MAX_QUEUE) {
      this.broadcast({ type: 'error', message: queueFull() });
      return;
    }
    const id = randomUUID();
    if (files && files.length > 0) this.queuedFiles.set(id, files);
    this.editQueue(() => {
      this.queue.push({
        id,
        content,
        ...(images && images.length > 0 ? { images } : {}),
        position: this.queue.length,
        createdAt: new Date(this.clock.now()).toISOString(),
      });
    });
  }

  /** No queue_changed is sent after this. */
  dispose(): void {
    if (this.queueFlush) clearImmediate(this.queueFlush);
  }

  /**
   * The contract's queue_changed carries the whole queue, so a burst of edits (a paste of many
   * prompts) is sent as one, after the burst: traffic grows with the edits, not their square.
   */
  private editQueue(change: () => void): void {
    change();
    this.queue.forEach((q, i) => {
      q.position = i;
    });
    this.setFlags({ queued: this.queue.length > 0 });
    this.queueFlush ??= setImmediate(() => {
      this.queueFlush = undefined;
      this.broadcast({ type: 'queue_changed', queue: this.queue.map((q) => ({ ...q })) });
    });
  }
}
