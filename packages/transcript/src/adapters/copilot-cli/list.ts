// Every session under one Copilot CLI home: <home>/session-state/<sessionId>/events.jsonl, and the
// older flat <home>/session-state/<sessionId>.jsonl, each read only as far as its head. The title
// is `summary` in the workspace.yaml beside a session's events.
import type { AdapterContext, ListEntry } from '../../adapter.js';
import { decodeUtf8 } from '../../lines.js';
import type { SessionHead } from '../../model.js';
import type { DirEntry } from '../../platform.js';
import { readFailed } from '../../result.js';
import { isWireId } from '../../values.js';
import { fileStem } from '../gemini-cli/paths.js';
import { entryIs, isMissing } from '../gemini-cli/session-dirs.js';
import { listedLastActivity, readListedFile } from '../shared.js';
import { readCopilotHead } from './head.js';
import { COPILOT_CLI } from './records.js';
import { copilotLastRecordAt } from './times.js';
import { parseWorkspace, type Workspace } from './workspace.js';

export const EVENTS_FILE = 'events.jsonl';
export const WORKSPACE_FILE = 'workspace.yaml';

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A workspace.yaml larger than this is not Copilot's small metadata file. */
const MAX_WORKSPACE_BYTES = 256 * 1024;

export async function* listCopilotSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  const { fs, join } = ctx.platform;
  const root = join(home, 'session-state');
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(root);
  } catch (cause) {
    if (!isMissing(cause)) yield { ref: root, error: readFailed(root, cause) };
    return;
  }
  for (const entry of entries.sort(byName)) {
    ctx.signal?.throwIfAborted();
    if (entry.name.endsWith('.jsonl')) {
      const path = join(root, entry.name);
      if (entry.isSymbolicLink && !entry.isFile && !entry.isDirectory) {
        yield { ref: path, error: readFailed(path, new Error('a symbolic link to nothing')) };
        continue;
      }
      if (await entryIs(ctx, root, entry, 'file')) yield await sessionHead(ctx, path, fileStem(path));
      continue;
    }
    if (!(await entryIs(ctx, root, entry, 'directory'))) continue;
    const dir = join(root, entry.name);
    const path = join(dir, EVENTS_FILE);
    try {
      if (!(await fs.stat(path)).isFile) continue;
    } catch (cause) {
      // A folder without events (a session opened and left at once) is no session yet.
      if (!isMissing(cause)) yield { ref: path, error: readFailed(path, cause) };
      continue;
    }
    yield await sessionHead(ctx, path, entry.name, join(dir, WORKSPACE_FILE));
  }
}

async function sessionHead(
  ctx: AdapterContext,
  path: string,
  name: string,
  workspacePath?: string,
): Promise<ListEntry> {
  const read = await readListedFile(ctx, path, readCopilotHead);
  if (!read.ok) return read.error;
  const { file, info } = read.value;
  const activity = await listedLastActivity(ctx, copilotLastRecordAt, path, [file]);
  if (!activity.ok) return activity.error;
  const last = activity.value;
  const size = file.size;
  const workspace = workspacePath === undefined ? {} : await readWorkspace(ctx, workspacePath);
  // The folder (or file) is named by the session id, which is what Copilot resumes by.
  const recorded = info.sessionId;
  const id = isWireId(name) ? name : recorded !== undefined && isWireId(recorded) ? recorded : name;
  const head: SessionHead = { agent: COPILOT_CLI, id, path, files: [path], size };
  const { firstPrompt, startedAt, gitBranch } = info;
  const cwd = info.cwd ?? nonEmpty(workspace.cwd);
  const title = nonEmpty(workspace.summary);
  const model = info.model ?? info.selectedModel;
  if (last !== undefined) head.lastActivityAt = last;
  if (cwd !== undefined) head.cwd = cwd;
  if (title !== undefined) head.title = title;
  if (firstPrompt !== undefined) head.firstPrompt = firstPrompt;
  if (startedAt !== undefined) head.startedAt = startedAt;
  const branch = gitBranch ?? nonEmpty(workspace.branch);
  if (branch !== undefined) head.gitBranch = branch;
  if (model !== undefined && model !== 'auto') head.model = model;
  return head;
}

const nonEmpty = (s: string | undefined): string | undefined =>
  s === undefined || s.trim() === '' ? undefined : s;

/** The workspace file's fields; none when it is missing, too large or not text (the listing goes on). */
async function readWorkspace(ctx: AdapterContext, path: string): Promise<Workspace> {
  try {
    const stat = await ctx.platform.fs.stat(path);
    if (!stat.isFile || stat.size > MAX_WORKSPACE_BYTES) return {};
    const text = decodeUtf8(await ctx.platform.fs.readFile(path, ctx.signal));
    return text === undefined ? {} : parseWorkspace(text);
  } catch {
    return {};
  }
}
