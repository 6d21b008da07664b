// Every session under one Gemini home: <home>/tmp/<project>/chats/session-*.json(l), each with
// the subagent files of chats/<session id>/. Each file is read only as far as its head.
import type { ActivityFile } from '../../activity.js';
import type { AdapterContext, ListEntry } from '../../adapter.js';
import { decodeUtf8 } from '../../lines.js';
import type { SessionHead } from '../../model.js';
import type { DirEntry } from '../../platform.js';
import { readFailed } from '../../result.js';
import { listedLastActivity, readListedFile } from '../shared.js';
import { readHeadInfo } from './head.js';
import { fileStem, SESSION_FILE } from './paths.js';
import { isObject, toMillis } from './records.js';
import { entryIs, isMissing, subagentFiles } from './session-dirs.js';
import { geminiLastRecordAt } from './times.js';

export const GEMINI_CLI = 'gemini-cli';

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function* listGeminiSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  const { fs, join } = ctx.platform;
  const tmp = join(home, 'tmp');
  let projects: DirEntry[];
  try {
    projects = await fs.readdir(tmp);
  } catch (cause) {
    if (!isMissing(cause)) yield { ref: tmp, error: readFailed(tmp, cause) };
    return;
  }
  let registry: Map<string, string> | undefined;
  for (const project of projects.sort(byName)) {
    ctx.signal?.throwIfAborted();
    if (!(await entryIs(ctx, tmp, project, 'directory'))) continue;
    const projectDir = join(tmp, project.name);
    const chats = join(projectDir, 'chats');
    let entries: DirEntry[];
    try {
      entries = await fs.readdir(chats);
    } catch (cause) {
      if (!isMissing(cause)) yield { ref: chats, error: readFailed(chats, cause) };
      continue;
    }
    const names = new Set(entries.map((e) => e.name));
    let cwd: string | undefined;
    let cwdKnown = false;
    const projectCwd = async (): Promise<string | undefined> => {
      if (!cwdKnown) {
        registry ??= await projectRegistry(ctx, home);
        cwd = (await projectRoot(ctx, projectDir)) ?? registry.get(project.name);
        cwdKnown = true;
      }
      return cwd;
    };
    /** Session ids of the main files listed, whose subagent folders they claim. */
    const claimed = new Set<string>();
    const heads: ListEntry[] = [];
    for (const entry of entries.sort(byName)) {
      ctx.signal?.throwIfAborted();
      if (!SESSION_FILE.test(entry.name)) continue;
      // Resuming a legacy session migrates it to <name>.jsonl, which then holds everything.
      if (entry.name.endsWith('.json') && names.has(`${entry.name}l`)) continue;
      if (entry.isSymbolicLink && !entry.isFile && !entry.isDirectory) {
        const path = join(chats, entry.name);
        heads.push({ ref: path, error: readFailed(path, new Error('a symbolic link to nothing')) });
        continue;
      }
      if (!(await entryIs(ctx, chats, entry, 'file'))) continue;
      const head = await sessionHead(ctx, chats, join(chats, entry.name), await projectCwd());
      if (!('ref' in head)) claimed.add(head.id);
      heads.push(head);
    }
    yield* withoutReopenStubs(heads);
    // A subagent folder whose main file is gone: each of its files is still a session, of its own.
    for (const entry of entries) {
      ctx.signal?.throwIfAborted();
      if (claimed.has(entry.name) || !(await entryIs(ctx, chats, entry, 'directory'))) continue;
      const folder = join(chats, entry.name);
      for (const path of await subagentFiles(ctx, chats, entry.name))
        yield await sessionHead(ctx, folder, path, await projectCwd());
    }
  }
}

/**
 * Reopening a session (`--resume`, ACP `session/load`) makes Gemini CLI start a second file for the
 * same id, named by the minute it was reopened, that never gets more than a header: the
 * conversation goes on in the first file. Such a file is not a session of its own, so of the files
 * sharing an id those without a prompt are left out, keeping the first by name when none has one.
 */
function* withoutReopenStubs(heads: readonly ListEntry[]): Generator<ListEntry> {
  const prompted = new Set<string>();
  for (const h of heads) if (!('ref' in h) && h.firstPrompt !== undefined) prompted.add(h.id);
  const listed = new Set<string>();
  for (const h of heads) {
    if ('ref' in h) {
      yield h;
      continue;
    }
    if (h.firstPrompt === undefined && (prompted.has(h.id) || listed.has(h.id))) continue;
    listed.add(h.id);
    yield h;
  }
}

async function sessionHead(
  ctx: AdapterContext,
  chats: string,
  path: string,
  projectCwd: string | undefined,
): Promise<ListEntry> {
  const read = await readListedFile(ctx, path, readHeadInfo);
  if (!read.ok) return read.error;
  const { file } = read.value;
  const _size = file.size;
  const { meta, firstPrompt, firstMessageAt } = read.value.info;
  const subagents = meta.sessionId ? await subagentFiles(ctx, chats, meta.sessionId) : [];
  const seen: ActivityFile[] = [file];
  for (const file of subagents) {
    try {
      const s = await ctx.platform.fs.stat(file);
      seen.push({ path: file, size: s.size, mtimeMs: s.mtimeMs });
    } catch {
      // A subagent file that vanished between the listing and the stat adds nothing.
    }
  }
  const activity = await listedLastActivity(ctx, geminiLastRecordAt, path, seen);
  if (!activity.ok) return activity.error;
  const last = activity.value;
  const head: SessionHead = {
    agent: GEMINI_CLI,
    id: meta.sessionId ?? fileStem(path),
    path,
    files: [path, ...subagents],
    size: seen.reduce((n, f) => n + f.size, 0),
  };
  if (last !== undefined) head.lastActivityAt = last;
  const cwd = projectCwd ?? meta.directories?.[0];
  if (cwd !== undefined) head.cwd = cwd;
  if (meta.summary !== undefined) head.title = meta.summary;
  if (firstPrompt !== undefined) head.firstPrompt = firstPrompt;
  const startedAt = toMillis(meta.startTime) ?? firstMessageAt;
  if (startedAt !== undefined) head.startedAt = startedAt;
  return head;
}

/** The project folder's owner, recorded in <project>/.project_root since short project ids. */
async function projectRoot(ctx: AdapterContext, projectDir: string): Promise<string | undefined> {
  try {
    const text = decodeUtf8(await ctx.readHead(ctx.platform.join(projectDir, '.project_root')))?.trim();
    return text ? text : undefined;
  } catch {
    return undefined;
  }
}

/** <home>/projects.json maps project paths to their short ids; inverted here. */
async function projectRegistry(ctx: AdapterContext, home: string): Promise<Map<string, string>> {
  const bySlug = new Map<string, string>();
  try {
    const text = decodeUtf8(await ctx.readHead(ctx.platform.join(home, 'projects.json')));
    const data: unknown = text === undefined ? undefined : JSON.parse(text);
    const projects = isObject(data) ? data.projects : undefined;
    if (isObject(projects)) {
      for (const [root, slug] of Object.entries(projects))
        if (typeof slug === 'string') bySlug.set(slug, root);
    }
  } catch {
    // No registry (older CLIs hash the project path instead): the cwd comes from the session, if at all.
  }
  return bySlug;
}
