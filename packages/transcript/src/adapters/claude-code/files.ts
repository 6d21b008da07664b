// The files of one session: the main file and its subagents' files.
import type { AdapterContext } from '../../adapter.js';
import type { DirEntry } from '../../platform.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { headRecords } from './head.js';
import { fileStem, str } from './records.js';

const errnoCode = (cause: unknown): string | undefined =>
  typeof cause === 'object' && cause !== null ? str((cause as { code?: unknown }).code) : undefined;

/** A missing folder is an empty one. */
export const isMissing = (cause: unknown): boolean => {
  const code = errnoCode(cause);
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/** A file, or a link that points to one or to nothing: listed, so that a broken link is reported
 * when it is read rather than passed over. */
export const isFileEntry = (e: DirEntry): boolean =>
  e.isFile || (e.isSymbolicLink === true && !e.isDirectory);

export const isAgentFile = (name: string): boolean => name.startsWith('agent-') && name.endsWith('.jsonl');

/**
 * The session a file in a session's subagents folder belongs to: `<dir>/<sid>/subagents/agent-*.jsonl`
 * or `<dir>/<sid>/subagents/workflows/<wf>/agent-*.jsonl` gives the project folder and the sid.
 */
export function subagentFolderSession(path: string): { dir: string; sid: string } | undefined {
  const parts = path.split(/[/\\]/);
  const name = parts[parts.length - 1] ?? '';
  if (!isAgentFile(name)) return undefined;
  let at = parts.length - 2;
  if (parts[at] !== 'subagents') {
    if (parts[at - 1] !== 'workflows' || parts[at - 2] !== 'subagents') return undefined;
    at -= 2;
  }
  const sid = parts[at - 1];
  if (sid === undefined || sid === '' || at - 1 < 1) return undefined;
  const dir = path.slice(0, path.length - parts.slice(at - 1).join('/').length - 1);
  return { dir, sid };
}

/** The folder part of a path, for either separator. */
export function dirOf(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return slash <= 0 ? path.slice(0, slash + 1) : path.slice(0, slash);
}

async function readdirOrEmpty(ctx: AdapterContext, dir: string): Promise<DirEntry[]> {
  try {
    return await ctx.platform.fs.readdir(dir);
  } catch (cause) {
    if (isMissing(cause)) return [];
    throw cause;
  }
}

/** `<dir>/<sid>/subagents/agent-*.jsonl` and, for workflows, `subagents/workflows/<wf>/agent-*.jsonl`, sorted. */
export async function subagentFiles(ctx: AdapterContext, dir: string, sessionId: string): Promise<string[]> {
  const { join } = ctx.platform;
  const root = join(dir, sessionId, 'subagents');
  const found: string[] = [];
  for (const e of await readdirOrEmpty(ctx, root)) {
    if (isFileEntry(e) && isAgentFile(e.name)) found.push(join(root, e.name));
    else if (e.isDirectory && e.name === 'workflows') {
      for (const wf of await readdirOrEmpty(ctx, join(root, e.name))) {
        if (!wf.isDirectory) continue;
        const wfDir = join(root, e.name, wf.name);
        for (const f of await readdirOrEmpty(ctx, wfDir))
          if (isFileEntry(f) && isAgentFile(f.name)) found.push(join(wfDir, f.name));
      }
    }
  }
  return found.sort();
}

/** The sessionId an older CLI's `agent-*.jsonl` beside the session files carries. */
export async function agentFileSession(ctx: AdapterContext, path: string): Promise<string | undefined> {
  for (const r of headRecords(await ctx.readHead(path))) {
    const sid = str(r.sessionId);
    if (sid !== undefined) return sid;
  }
  return undefined;
}

/** Older subagent files beside the session file that carry its sessionId. */
async function besideFiles(ctx: AdapterContext, dir: string, sessionId: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdirOrEmpty(ctx, dir)) {
    if (!isFileEntry(e) || !isAgentFile(e.name)) continue;
    const path = ctx.platform.join(dir, e.name);
    try {
      if ((await agentFileSession(ctx, path)) === sessionId) found.push(path);
    } catch {
      // An unreadable neighbour is not part of this session's failure; loading it would fail anyway.
    }
  }
  return found.sort();
}

/**
 * The files of the session whose main file is `path`: the main file, its subagent files, then
 * older subagent files beside it. When the main file is gone but subagent files remain, they alone.
 * A file of a session's subagents folder opens its whole session; an older subagent file beside
 * the sessions, opened on its own, is a session of one file.
 */
export async function claudeSessionFiles(
  ctx: AdapterContext,
  path: string,
): Promise<Result<string[], SessionReadError>> {
  const inFolder = subagentFolderSession(path);
  if (inFolder) {
    const whole = await claudeSessionFiles(ctx, ctx.platform.join(inFolder.dir, `${inFolder.sid}.jsonl`));
    return whole.ok && !whole.value.includes(path) ? err(sessionNotFound(path)) : whole;
  }
  const dir = dirOf(path);
  const name = path.slice(dir.length).replace(/^[/\\]/, '');
  const sessionId = fileStem(path);
  try {
    const stat = await ctx.platform.fs.stat(path);
    if (stat.isDirectory) return err(readFailed(path, new Error('is a directory, not a session file')));
  } catch (cause) {
    if (!isMissing(cause)) return err(readFailed(path, cause));
    if (isAgentFile(name)) return err(sessionNotFound(path));
    try {
      const subagents = await subagentFiles(ctx, dir, sessionId);
      return subagents.length > 0 ? ok(subagents) : err(sessionNotFound(path));
    } catch {
      return err(sessionNotFound(path));
    }
  }
  if (isAgentFile(name)) return ok([path]);
  try {
    const subagents = await subagentFiles(ctx, dir, sessionId);
    const beside = await besideFiles(ctx, dir, sessionId);
    return ok([path, ...subagents, ...beside]);
  } catch (cause) {
    return err(readFailed(dir, cause));
  }
}
