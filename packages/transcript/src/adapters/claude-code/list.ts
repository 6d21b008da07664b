// Listing the sessions under one Claude Code home: `<home>/projects/<munged cwd>/<sessionId>.jsonl`.

import { type ActivityFile, lastLineTime, sessionLastActivity } from '../../activity.js';
import type { AdapterContext, DiscoverEntry, ListEntry, ListFailure } from '../../adapter.js';
import { HEADS_AHEAD, lookAhead } from '../../ahead.js';
import type { SessionHead } from '../../model.js';
import { readFailed, unknownFormatGeneration } from '../../result.js';
import { agentFileSession, isAgentFile, isFileEntry, isMissing, subagentFiles } from './files.js';
import { headFacts } from './head.js';
import { fileStem, isRec, timestampOf } from './records.js';

export const CLAUDE_CODE = 'claude-code';

/** A session's main file, the folder it is in and the older subagent files beside it that join it;
 * or, when the main file is gone, where it was and the subagent files that remain. */
interface MainFile {
  dir: string;
  path: string;
  beside: readonly string[];
  orphans?: readonly string[];
}

export function listClaudeSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  return lookAhead(mainFiles(ctx, home), HEADS_AHEAD, async (found) =>
    'ref' in found
      ? found
      : found.orphans
        ? orphanHead(ctx, found.path, found.orphans)
        : headOf(ctx, found.dir, found.path, found.beside),
  );
}

/** The sessions of `list` from file names: the id is the file's stem, so no head is read. */
export async function* discoverClaudeSessions(
  ctx: AdapterContext,
  home: string,
): AsyncGenerator<DiscoverEntry> {
  for await (const found of mainFiles(ctx, home))
    yield 'ref' in found ? found : { agent: CLAUDE_CODE, id: fileStem(found.path), path: found.path };
}

async function* mainFiles(ctx: AdapterContext, home: string): AsyncGenerator<MainFile | ListFailure> {
  const { fs, join } = ctx.platform;
  const projects = join(home, 'projects');
  let dirs: string[];
  try {
    dirs = (await fs.readdir(projects))
      .filter((e) => e.isDirectory)
      .map((e) => e.name)
      .sort();
  } catch (cause) {
    if (!isMissing(cause)) yield { ref: projects, error: readFailed(projects, cause) };
    return;
  }
  for (const name of dirs) {
    ctx.signal?.throwIfAborted();
    const dir = join(projects, name);
    let files: string[];
    let folders: string[];
    try {
      const entries = await fs.readdir(dir);
      files = entries
        .filter((e) => isFileEntry(e) && e.name.endsWith('.jsonl'))
        .map((e) => e.name)
        .sort();
      folders = entries.filter((e) => e.isDirectory).map((e) => e.name);
    } catch (cause) {
      yield { ref: dir, error: readFailed(dir, cause) };
      continue;
    }
    yield* listProject(ctx, dir, files, folders);
  }
}

async function* listProject(
  ctx: AdapterContext,
  dir: string,
  names: readonly string[],
  folders: readonly string[],
): AsyncGenerator<MainFile | ListFailure> {
  const { join } = ctx.platform;
  const mains = names.filter((n) => !isAgentFile(n));
  const stems = new Set(mains.map(fileStem));
  // A session folder without its main file: the session is still there in its subagents' files.
  const orphans = new Map<string, string[]>();
  for (const sid of folders) {
    if (stems.has(sid)) continue;
    try {
      const subagents = await subagentFiles(ctx, dir, sid);
      if (subagents.length > 0) orphans.set(`${sid}.jsonl`, subagents);
    } catch (cause) {
      const path = join(dir, sid);
      yield { ref: path, error: readFailed(path, cause) };
    }
  }
  // Older CLIs wrote subagent files beside the sessions; they join the session they name.
  const beside = new Map<string, string[]>();
  const loose: string[] = [];
  for (const n of names.filter(isAgentFile)) {
    const path = join(dir, n);
    let sid: string | undefined;
    try {
      sid = await agentFileSession(ctx, path);
    } catch (cause) {
      yield { ref: path, error: readFailed(path, cause) };
      continue;
    }
    if (sid !== undefined && stems.has(sid)) beside.set(sid, [...(beside.get(sid) ?? []), path]);
    else loose.push(n);
  }
  for (const n of [...mains, ...loose, ...orphans.keys()].sort()) {
    ctx.signal?.throwIfAborted();
    const path = join(dir, n);
    const remaining = orphans.get(n);
    if (remaining) yield { dir, path, beside: [], orphans: remaining };
    else yield { dir, path, beside: isAgentFile(n) ? [] : (beside.get(fileStem(path)) ?? []) };
  }
}

async function headOf(
  ctx: AdapterContext,
  dir: string,
  path: string,
  beside: readonly string[],
): Promise<ListEntry> {
  const { fs } = ctx.platform;
  const id = fileStem(path);
  try {
    const head = await ctx.readHead(path);
    const facts = headFacts(head);
    if (facts.unknown)
      return { ref: path, error: unknownFormatGeneration(path, facts.unknown.line, facts.unknown.detail) };
    const subagents = isAgentFile(path.slice(dir.length + 1)) ? [] : await subagentFiles(ctx, dir, id);
    const files = [path, ...subagents, ...beside];
    const seen: ActivityFile[] = [];
    for (const f of files) {
      const s = await fs.stat(f);
      seen.push({ path: f, size: s.size, mtimeMs: s.mtimeMs, ...(f === path ? { head } : {}) });
    }
    const size = seen.reduce((n, f) => n + f.size, 0);
    const lastActivityAt = await sessionLastActivity(ctx, claudeTimes, seen);
    const entry: SessionHead = { agent: CLAUDE_CODE, id, path, files, size };
    if (facts.cwd !== undefined) entry.cwd = facts.cwd;
    if (facts.title !== undefined) entry.title = facts.title;
    if (facts.firstPrompt !== undefined) entry.firstPrompt = facts.firstPrompt;
    if (facts.startedAt !== undefined) entry.startedAt = facts.startedAt;
    if (facts.gitBranch !== undefined) entry.gitBranch = facts.gitBranch;
    if (lastActivityAt !== undefined) entry.lastActivityAt = lastActivityAt;
    return entry;
  } catch (cause) {
    return { ref: path, error: readFailed(path, cause) };
  }
}

/** How a Claude Code record tells its time: its `timestamp`. */
export const claudeLastRecordAt = (_path: string, data: Uint8Array, whole: boolean): number | undefined =>
  lastLineTime(data, (r) => (isRec(r) ? timestampOf(r.timestamp) : undefined), whole);

const claudeTimes = { lastRecordAt: claudeLastRecordAt };

/**
 * The head of a session whose main file is gone: its subagent files, the facts their heads give,
 * no first prompt (the main lane is empty), marked as such.
 */
async function orphanHead(ctx: AdapterContext, path: string, files: readonly string[]): Promise<ListEntry> {
  const id = fileStem(path);
  try {
    const seen: ActivityFile[] = [];
    let cwd: string | undefined;
    let startedAt: number | undefined;
    for (const f of files) {
      const s = await ctx.platform.fs.stat(f);
      const head = await ctx.readHead(f);
      const facts = headFacts(head);
      if (facts.unknown)
        return { ref: f, error: unknownFormatGeneration(f, facts.unknown.line, facts.unknown.detail) };
      cwd ??= facts.cwd;
      if (facts.startedAt !== undefined)
        startedAt = startedAt === undefined ? facts.startedAt : Math.min(startedAt, facts.startedAt);
      seen.push({ path: f, size: s.size, mtimeMs: s.mtimeMs, head });
    }
    const entry: SessionHead = {
      agent: CLAUDE_CODE,
      id,
      path,
      files: [...files],
      size: seen.reduce((n, f) => n + f.size, 0),
      mainFileMissing: true,
    };
    if (cwd !== undefined) entry.cwd = cwd;
    if (startedAt !== undefined) entry.startedAt = startedAt;
    const lastActivityAt = await sessionLastActivity(ctx, claudeTimes, seen);
    if (lastActivityAt !== undefined) entry.lastActivityAt = lastActivityAt;
    return entry;
  } catch (cause) {
    return { ref: path, error: readFailed(path, cause) };
  }
}
