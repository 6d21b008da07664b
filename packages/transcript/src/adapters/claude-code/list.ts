// Listing the sessions under one Claude Code home: `<home>/projects/<munged cwd>/<sessionId>.jsonl`.
import type { AdapterContext, DiscoverEntry, ListEntry, ListFailure } from '../../adapter.js';
import type { SessionHead } from '../../model.js';
import { readFailed, unknownFormatGeneration } from '../../result.js';
import { agentFileSession, isAgentFile, isMissing, subagentFiles } from './files.js';
import { headFacts } from './head.js';
import { fileStem } from './records.js';

export const CLAUDE_CODE = 'claude-code';

/** A session's main file, the folder it is in and the older subagent files beside it that join it. */
interface MainFile {
  dir: string;
  path: string;
  beside: readonly string[];
}

export async function* listClaudeSessions(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
  for await (const found of mainFiles(ctx, home))
    yield 'ref' in found ? found : await headOf(ctx, found.dir, found.path, found.beside);
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
    try {
      files = (await fs.readdir(dir))
        .filter((e) => e.isFile && e.name.endsWith('.jsonl'))
        .map((e) => e.name)
        .sort();
    } catch (cause) {
      yield { ref: dir, error: readFailed(dir, cause) };
      continue;
    }
    yield* listProject(ctx, dir, files);
  }
}

async function* listProject(
  ctx: AdapterContext,
  dir: string,
  names: readonly string[],
): AsyncGenerator<MainFile | ListFailure> {
  const { join } = ctx.platform;
  const mains = names.filter((n) => !isAgentFile(n));
  const stems = new Set(mains.map(fileStem));
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
  for (const n of [...mains, ...loose].sort()) {
    ctx.signal?.throwIfAborted();
    const path = join(dir, n);
    yield { dir, path, beside: isAgentFile(n) ? [] : (beside.get(fileStem(path)) ?? []) };
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
    let size = 0;
    let lastActivityAt: number | undefined;
    for (const f of files) {
      const s = await fs.stat(f);
      size += s.size;
      lastActivityAt = lastActivityAt === undefined ? s.mtimeMs : Math.max(lastActivityAt, s.mtimeMs);
    }
    const entry: SessionHead = { agent: CLAUDE_CODE, id, path, files, size };
    if (facts.cwd !== undefined) entry.cwd = facts.cwd;
    if (facts.title !== undefined) entry.title = facts.title;
    if (facts.firstPrompt !== undefined) entry.firstPrompt = facts.firstPrompt;
    if (facts.startedAt !== undefined) entry.startedAt = facts.startedAt;
    if (lastActivityAt !== undefined) entry.lastActivityAt = lastActivityAt;
    return entry;
  } catch (cause) {
    return { ref: path, error: readFailed(path, cause) };
  }
}
