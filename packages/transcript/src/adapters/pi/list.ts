// Every session under one pi sessions folder: `<folder>/--<cwd>--/<time>_<id>.jsonl` as pi lays
// them out by default, and `<folder>/<time>_<id>.jsonl` straight in a folder named by
// PI_CODING_AGENT_SESSION_DIR. Each file is read only as far as its head; the folder's name is a
// mangled path, and the header says where the session ran.
import type { AdapterContext, ListEntry } from '../../adapter.js';
import type { SessionHead } from '../../model.js';
import type { DirEntry } from '../../platform.js';
import { readFailed } from '../../result.js';
import { entryIs, isMissing } from '../gemini-cli/session-dirs.js';
import { listedLastActivity, readListedFile } from '../shared.js';
import { readPiHead } from './head.js';
import { PI, piSessionId } from './records.js';
import { piLastRecordAt } from './times.js';

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function* listPiSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  yield* listFolder(ctx, home, true);
}

async function* listFolder(ctx: AdapterContext, dir: string, top: boolean): AsyncGenerator<ListEntry> {
  const { fs, join } = ctx.platform;
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(dir);
  } catch (cause) {
    if (!isMissing(cause)) yield { ref: dir, error: readFailed(dir, cause) };
    return;
  }
  for (const entry of entries.sort(byName)) {
    ctx.signal?.throwIfAborted();
    const path = join(dir, entry.name);
    if (top && (await entryIs(ctx, dir, entry, 'directory'))) {
      yield* listFolder(ctx, path, false);
      continue;
    }
    if (!entry.name.endsWith('.jsonl')) continue;
    if (entry.isSymbolicLink && !entry.isFile && !entry.isDirectory) {
      yield { ref: path, error: readFailed(path, new Error('a symbolic link to nothing')) };
      continue;
    }
    if (!(await entryIs(ctx, dir, entry, 'file'))) continue;
    yield await sessionHead(ctx, path);
  }
}

async function sessionHead(ctx: AdapterContext, path: string): Promise<ListEntry> {
  const read = await readListedFile(ctx, path, readPiHead);
  if (!read.ok) return read.error;
  const { file, info } = read.value;
  const activity = await listedLastActivity(ctx, piLastRecordAt, path, [file]);
  if (!activity.ok) return activity.error;
  const last = activity.value;
  const size = file.size;
  const { sessionId, cwd, title, firstPrompt, startedAt, model, chosenModel } = info;
  const head: SessionHead = { agent: PI, id: piSessionId(path, sessionId), path, files: [path], size };
  if (last !== undefined) head.lastActivityAt = last;
  if (cwd !== undefined && cwd !== '') head.cwd = cwd;
  if (title !== undefined) head.title = title;
  if (firstPrompt !== undefined) head.firstPrompt = firstPrompt;
  if (startedAt !== undefined) head.startedAt = startedAt;
  const answered = model ?? chosenModel;
  if (answered !== undefined) head.model = answered;
  return head;
}
