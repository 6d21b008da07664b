// The files of a chat's project folder, for the composer's `@`: listed relative to the folder,
// bounded, without .git, node_modules and what the folder's own .gitignore names; and a chosen
// path checked back into an absolute one that can never lead outside the folder.
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { MAX_PROJECT_FILES } from '@cairn/protocol';

/** Folders never listed, whatever .gitignore says. */
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);

/** How many entries one listing looks at, at most: a huge folder answers from its first part. */
export const MAX_WALKED_ENTRIES = 20_000;

export class ProjectFileError extends Error {}

interface IgnoreRule {
  readonly pattern: RegExp;
  /** The rule names a path from the folder's top (it has a `/` before its end). */
  readonly anchored: boolean;
  readonly directoryOnly: boolean;
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else source += '[^/]*';
    } else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The plain rules of a .gitignore; negations (`!`) are not followed, so those files stay hidden. */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const directoryOnly = line.endsWith('/');
    if (directoryOnly) line = line.slice(0, -1);
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    if (line === '') continue;
    rules.push({ pattern: globToRegExp(line), anchored, directoryOnly });
  }
  return rules;
}

function ignored(rules: readonly IgnoreRule[], path: string, name: string, isDirectory: boolean): boolean {
  return rules.some((r) => (!r.directoryOnly || isDirectory) && r.pattern.test(r.anchored ? path : name));
}

/** How well `path` answers `query`: lower is better; undefined when it does not. */
function rank(path: string, query: string): number | undefined {
  if (query === '') return path.split('/').length;
  const lower = path.toLowerCase();
  const at = lower.indexOf(query);
  if (at < 0) return undefined;
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (name.startsWith(query)) return 0;
  if (name.includes(query)) return 1;
  return 2;
}

/**
 * The folder's files whose relative path holds `query` (case-insensitive), best first: a name that
 * starts with it, then one that holds it, then any path; shorter paths first within each.
 */
export async function listProjectFiles(
  root: string,
  query = '',
  limit = MAX_PROJECT_FILES,
): Promise<{ files: string[]; truncated: boolean }> {
  const wanted = query.trim().toLowerCase().replace(/^\.\//, '');
  let rules: IgnoreRule[] = [];
  try {
    rules = parseGitignore(await readFile(join(root, '.gitignore'), 'utf8'));
  } catch {
    // No .gitignore: only the folders that are always skipped are left out.
  }
  const found: { path: string; score: number }[] = [];
  const folders = [''];
  let walked = 0;
  while (folders.length > 0 && walked < MAX_WALKED_ENTRIES) {
    const folder = folders.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(join(root, folder), { withFileTypes: true });
    } catch {
      continue; // unreadable folder: its files are simply not offered
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++walked > MAX_WALKED_ENTRIES) break;
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      // Links are not followed: one could lead out of the folder.
      if (entry.isDirectory()) {
        if (!ALWAYS_SKIPPED.has(entry.name) && !ignored(rules, path, entry.name, true)) folders.push(path);
      } else if (entry.isFile() && !ignored(rules, path, entry.name, false)) {
        const score = rank(path, wanted);
        if (score !== undefined) found.push({ path, score });
      }
    }
  }
  found.sort((a, b) => a.score - b.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return { files: found.slice(0, limit).map((f) => f.path), truncated: found.length > limit };
}

/** The absolute path of `path` (relative to `root`), refused when it is not a file inside `root`. */
export async function resolveProjectFile(root: string, path: string): Promise<string> {
  if (path === '' || isAbsolute(path) || path.split(/[\\/]/).includes('..'))
    throw new ProjectFileError(`${JSON.stringify(path)} is not a path inside the project folder`);
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(join(root, path));
  } catch {
    throw new ProjectFileError(`${path} is not in the project folder ${root}`);
  }
  const rel = relative(realRoot, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel))
    throw new ProjectFileError(`${path} leads outside the project folder ${root}`);
  if (!(await stat(real)).isFile()) throw new ProjectFileError(`${path} is not a file`);
  return real;
}
