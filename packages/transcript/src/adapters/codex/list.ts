// Session heads of a Codex home, each from the first bytes of its rollout.
import { lastLineTime, sessionLastActivity } from '../../activity.js';
import type { AdapterContext, DiscoverEntry, ListEntry, SourceFile } from '../../adapter.js';
import { HEADS_AHEAD, lookAhead } from '../../ahead.js';
import type { SessionHead } from '../../model.js';
import { readFailed } from '../../result.js';
import { classify, type Item, idFromPath } from './classify.js';
import { messageText } from './content.js';
import { rolloutPaths } from './files.js';
import { isObject, str, timeOf } from './records.js';

/** How a rollout line tells its time: the envelope's `timestamp`. */
export const codexLastRecordAt = (_path: string, data: Uint8Array, whole: boolean): number | undefined =>
  lastLineTime(data, (r) => (isObject(r) ? timeOf(r.timestamp) : undefined), whole);

export function listRollouts(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  return lookAhead(rolloutPaths(ctx, home), HEADS_AHEAD, async (found) =>
    typeof found === 'string' ? rolloutHead(ctx, found) : found,
  );
}

/** A rollout's head, from its first bytes; or why it cannot be listed. */
async function rolloutHead(ctx: AdapterContext, path: string): Promise<ListEntry> {
  let size: number;
  let mtimeMs: number;
  let data: Uint8Array;
  try {
    ({ size, mtimeMs } = await ctx.platform.fs.stat(path));
    data = await ctx.readHead(path);
  } catch (cause) {
    ctx.signal?.throwIfAborted();
    return { ref: path, error: readFailed(path, cause) };
  }
  const file: SourceFile = path.endsWith('.zst') ? { path, data, codec: 'zstd' } : { path, data };
  // The head goes through the same classification as a full read, so the first prompt is the
  // first turn a loaded transcript would show.
  const classified = classify([file]);
  if (!classified.ok) return { ref: path, error: classified.error };
  const { items, session } = classified.value;
  let lastActivityAt: number | undefined;
  try {
    lastActivityAt = await sessionLastActivity(ctx, { lastRecordAt: codexLastRecordAt }, [
      path.endsWith('.zst') ? { path, size, mtimeMs } : { path, size, mtimeMs, head: data },
    ]);
  } catch (cause) {
    ctx.signal?.throwIfAborted();
    return { ref: path, error: readFailed(path, cause) };
  }
  const head: SessionHead = { agent: 'codex', id: session.id, path, files: [path], size };
  if (lastActivityAt !== undefined) head.lastActivityAt = lastActivityAt;
  if (session.cwd !== undefined) head.cwd = session.cwd;
  if (session.title !== undefined) head.title = session.title;
  const branch = gitBranchOf(items);
  if (branch !== undefined) head.gitBranch = branch;
  const startedAt =
    session.startedAt ?? items.find((it) => it.kind !== 'skip' && it.rec.ts !== undefined)?.rec.ts;
  if (startedAt !== undefined) head.startedAt = startedAt;
  const prompt = items.find((it) => it.kind === 'user' && it.origin === undefined);
  if (prompt) {
    const p = prompt.rec.payload ?? {};
    head.firstPrompt = prompt.rec.type === 'event_msg' ? (str(p.message) ?? '') : messageText(p.content).text;
  }
  return head;
}

/** The branch the session_meta's `git` block names. */
function gitBranchOf(items: readonly Item[]): string | undefined {
  const meta = items.find((it) => it.kind === 'system' && it.type === 'session_meta');
  const payload = meta && meta.kind === 'system' ? meta.rec.payload : undefined;
  const git = isObject(payload) ? payload.git : undefined;
  return isObject(git) ? str(git.branch) || undefined : undefined;
}

/** How much of a rollout discovery reads first, hoping for its whole first line (the session_meta). */
const FIRST_LINE_BYTES = 16 * 1024;

/** The sessions of `list`, each read only as far as the session_meta that names it. */
export async function* discoverRollouts(ctx: AdapterContext, home: string): AsyncGenerator<DiscoverEntry> {
  for await (const found of rolloutPaths(ctx, home)) {
    if (typeof found !== 'string') yield found;
    else yield { agent: 'codex', id: await rolloutId(ctx, found), path: found };
  }
}

/**
 * The id `list` gives a rollout. A session_meta on the first line names the session whatever
 * follows, so its line is enough; otherwise the head is classified as `list` does. A file that
 * cannot be read keeps the id of its name: reading the session reports the failure.
 */
async function rolloutId(ctx: AdapterContext, path: string): Promise<string> {
  try {
    if (!path.endsWith('.zst')) {
      const start = await ctx.platform.fs.readRange(path, 0, FIRST_LINE_BYTES);
      const end = start.indexOf(0x0a);
      if (end !== -1) {
        const first = classify([{ path, data: start.subarray(0, end + 1) }]);
        const item = first.ok ? first.value.items[0] : undefined;
        if (first.ok && item?.kind === 'system' && item.type === 'session_meta')
          return first.value.session.id;
      }
    }
    const data = await ctx.readHead(path);
    const file: SourceFile = path.endsWith('.zst') ? { path, data, codec: 'zstd' } : { path, data };
    const classified = classify([file]);
    return classified.ok ? classified.value.session.id : idFromPath(path);
  } catch {
    ctx.signal?.throwIfAborted();
    return idFromPath(path);
  }
}
