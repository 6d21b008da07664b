// Handing the main thread back to the page between two pieces of work. A long history's chunks
// arrive faster than they are read: queued behind a redraw, they were unzipped and checked one after
// another in a single task of seconds, during which the page could neither scroll nor paint.

type Scheduler = { yield?: () => Promise<void> };

const channel = typeof MessageChannel === 'undefined' ? undefined : new MessageChannel();
const waiting: (() => void)[] = [];
if (channel) {
  channel.port1.onmessage = () => waiting.shift()?.();
}

/** Resolves in a task of its own, after what the page has waiting (input, scrolling, a frame). */
export function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  // A message is a new task without the clamp a nested timer gets.
  if (!channel) return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}
