// Walking Gemini CLI's folders through the platform: <home>/tmp/<project>/chats/, and the
// subagent folder chats/<parent session id>/ beside a main session file.
import type { AdapterContext } from '../../adapter.js';
import type { DirEntry } from '../../platform.js';

export const isMissing = (cause: unknown): boolean =>
  (cause as { code?: unknown } | undefined)?.code === 'ENOENT' ||
  (cause as { code?: unknown } | undefined)?.code === 'ENOTDIR';

/** Whether a folder entry is a file (or a directory), following a symbolic link when it is one. */
export async function entryIs(
  ctx: AdapterContext,
  dir: string,
  entry: DirEntry,
  want: 'file' | 'directory',
): Promise<boolean> {
  if (entry.isFile || entry.isDirectory) return want === 'file' ? entry.isFile : entry.isDirectory;
  try {
    const s = await ctx.platform.fs.stat(ctx.platform.join(dir, entry.name));
    return want === 'file' ? s.isFile : s.isDirectory;
  } catch {
    return false;
  }
}

/** The subagent files of a session, sorted: chats/<sessionId>/*.jsonl (none when the folder is absent). */
export async function subagentFiles(
  ctx: AdapterContext,
  chatsDir: string,
  sessionId: string,
): Promise<string[]> {
  const dir = ctx.platform.join(chatsDir, sessionId);
  let entries: DirEntry[];
  try {
    entries = await ctx.platform.fs.readdir(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.endsWith('.jsonl') && (await entryIs(ctx, dir, e, 'file')))
      files.push(ctx.platform.join(dir, e.name));
  }
  return files;
}
