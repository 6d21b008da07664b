// Every session under one Qwen Code home: <home>/projects/<project>/chats/<sessionId>.jsonl, each
// read only as far as its head. The project folder's name is a mangled path; the session's own
// records say where it ran.
import type { AdapterContext, ListEntry } from '../../adapter.js';
import type { SessionHead } from '../../model.js';
import type { DirEntry } from '../../platform.js';
import { readFailed } from '../../result.js';
import { isWireId } from '../../values.js';
import { fileStem } from '../gemini-cli/paths.js';
import { entryIs, isMissing } from '../gemini-cli/session-dirs.js';
import { listedLastActivity, readListedFile } from '../shared.js';
import { readQwenHead } from './head.js';
import { QWEN_CODE } from './records.js';
import { qwenLastRecordAt } from './times.js';

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function* listQwenSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  const { fs, join } = ctx.platform;
  const root = join(home, 'projects');
  let projects: DirEntry[];
  try {
    projects = await fs.readdir(root);
  } catch (cause) {
    if (!isMissing(cause)) yield { ref: root, error: readFailed(root, cause) };
    return;
  }
  for (const project of projects.sort(byName)) {
    ctx.signal?.throwIfAborted();
    if (!(await entryIs(ctx, root, project, 'directory'))) continue;
    const chats = join(root, project.name, 'chats');
    let entries: DirEntry[];
    try {
      entries = await fs.readdir(chats);
    } catch (cause) {
      if (!isMissing(cause)) yield { ref: chats, error: readFailed(chats, cause) };
      continue;
    }
    for (const entry of entries.sort(byName)) {
      ctx.signal?.throwIfAborted();
      if (!entry.name.endsWith('.jsonl')) continue;
      const path = join(chats, entry.name);
      if (entry.isSymbolicLink && !entry.isFile && !entry.isDirectory) {
        yield { ref: path, error: readFailed(path, new Error('a symbolic link to nothing')) };
        continue;
      }
      if (!(await entryIs(ctx, chats, entry, 'file'))) continue;
      yield await sessionHead(ctx, path);
    }
  }
}

async function sessionHead(ctx: AdapterContext, path: string): Promise<ListEntry> {
  const read = await readListedFile(ctx, path, readQwenHead);
  if (!read.ok) return read.error;
  const { file, info } = read.value;
  const activity = await listedLastActivity(ctx, qwenLastRecordAt, path, [file]);
  if (!activity.ok) return activity.error;
  const last = activity.value;
  const size = file.size;
  // The file is named by the session id, which is what Qwen Code resumes by.
  const stem = fileStem(path);
  const recorded = info.sessionId;
  const id = isWireId(stem) ? stem : recorded !== undefined && isWireId(recorded) ? recorded : stem;
  const head: SessionHead = { agent: QWEN_CODE, id, path, files: [path], size };
  const { cwd, title, firstPrompt, startedAt, gitBranch, model } = info;
  if (last !== undefined) head.lastActivityAt = last;
  if (cwd !== undefined) head.cwd = cwd;
  if (title !== undefined) head.title = title;
  if (firstPrompt !== undefined) head.firstPrompt = firstPrompt;
  if (startedAt !== undefined) head.startedAt = startedAt;
  if (gitBranch !== undefined) head.gitBranch = gitBranch;
  if (model !== undefined) head.model = model;
  return head;
}
