// cairn's own state (tokens, tickets, journals, indexes, logs) is for the user who runs it alone:
// every folder cairn makes under $CAIRN_HOME is 0700 and every file 0600.
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

export const OWNER_ONLY_DIR = 0o700;
export const OWNER_ONLY_FILE = 0o600;

/** Sets `path` to `wanted` unless it is that already; a path this user cannot change is left. */
function tighten(path: string, mode: number, wanted: number): void {
  if ((mode & 0o077) === 0 && (mode & 0o777) === wanted) return;
  try {
    chmodSync(path, wanted);
  } catch {
    // Another user's entry, or gone meanwhile: nothing this process may do about it.
  }
}

/** Makes `dir` (and any missing parent) owner-only; an existing `dir` is tightened. Answers `dir`. */
export function ownerOnlyDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR });
  tighten(dir, statSync(dir).mode, OWNER_ONLY_DIR);
  return dir;
}

/**
 * Makes the file at `path` owner-only before SQLite or a log opens it: created empty when missing,
 * tightened when present. SQLite gives a database's -wal, -shm and -journal files the mode of the
 * database file, so they follow. `:memory:` is answered as it is. Answers `path`.
 */
export function ownerOnlyFile(path: string): string {
  if (path === ':memory:' || path === '') return path;
  mkdirSync(dirname(path), { recursive: true, mode: OWNER_ONLY_DIR });
  closeSync(openSync(path, 'a', OWNER_ONLY_FILE));
  tighten(path, statSync(path).mode, OWNER_ONLY_FILE);
  return path;
}

/**
 * Tightens `root` and everything below it: folders to 0700, files to their mode without the
 * group's and others' bits (an executable stays executable by its owner). Links are not followed;
 * folders named in `shallow` are tightened but not entered.
 */
export function ownerOnlyTree(root: string, shallow: readonly string[] = []): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(root);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) return;
  if (st.isFile()) {
    tighten(root, st.mode, st.mode & 0o700);
    return;
  }
  if (!st.isDirectory()) return;
  tighten(root, st.mode, OWNER_ONLY_DIR);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(root, name);
    if (shallow.includes(name)) {
      try {
        const inner = lstatSync(path);
        if (inner.isDirectory()) tighten(path, inner.mode, OWNER_ONLY_DIR);
      } catch {
        // Gone meanwhile.
      }
    } else ownerOnlyTree(path);
  }
}

/**
 * Makes `$CAIRN_HOME` owner-only at start, tightening what an earlier cairn left looser. The agents'
 * installs are not walked (many thousands of files, tightened when installed); their folder is.
 */
export function secureCairnHome(home: string): string {
  ownerOnlyDir(home);
  // A home that is a link is walked where it points.
  ownerOnlyTree(realpathSync(home), ['agents']);
  return home;
}
