// Session heads of a Codex home, each from the first bytes of its rollout.
import type { AdapterContext, ListEntry, SourceFile } from '../../adapter.js';
import type { SessionHead } from '../../model.js';
import { readFailed } from '../../result.js';
import { classify } from './classify.js';
import { messageText } from './content.js';
import { rolloutPaths } from './files.js';
import { str } from './records.js';

export async function* listRollouts(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  for await (const found of rolloutPaths(ctx, home)) {
    if (typeof found !== 'string') {
      yield found;
      continue;
    }
    const path = found;
    let size: number;
    let mtimeMs: number;
    let data: Uint8Array;
    try {
      ({ size, mtimeMs } = await ctx.platform.fs.stat(path));
      data = await ctx.readHead(path);
    } catch (cause) {
      ctx.signal?.throwIfAborted();
      yield { ref: path, error: readFailed(path, cause) };
      continue;
    }
    const file: SourceFile = path.endsWith('.zst') ? { path, data, codec: 'zstd' } : { path, data };
    // The head goes through the same classification as a full read, so the first prompt is the
    // first turn a loaded transcript would show.
    const classified = classify([file]);
    if (!classified.ok) {
      yield { ref: path, error: classified.error };
      continue;
    }
    const { items, session } = classified.value;
    const head: SessionHead = {
      agent: 'codex',
      id: session.id,
      path,
      files: [path],
      size,
      lastActivityAt: mtimeMs,
    };
    if (session.cwd !== undefined) head.cwd = session.cwd;
    if (session.title !== undefined) head.title = session.title;
    const startedAt =
      session.startedAt ?? items.find((it) => it.kind !== 'skip' && it.rec.ts !== undefined)?.rec.ts;
    if (startedAt !== undefined) head.startedAt = startedAt;
    const prompt = items.find((it) => it.kind === 'user' && it.origin === undefined);
    if (prompt) {
      const p = prompt.rec.payload ?? {};
      head.firstPrompt =
        prompt.rec.type === 'event_msg' ? (str(p.message) ?? '') : messageText(p.content).text;
    }
    yield head;
  }
}
