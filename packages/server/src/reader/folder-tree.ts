// A folder and the folders under it followed with one plain (not recursive) watch per folder. Node's
// recursive watch on Linux watches every file and folder on its own and keeps a stat of each: over a
// home of 20,000 sessions that is some 30,000 handles and tens of megabytes held for nothing, since
// a folder's watch already reports every write to the files in it.
import { type Dirent, type FSWatcher, realpathSync, type Stats, statSync, watch } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface FolderTreeOptions {
  /** Folders this far below the root are not watched (nor what is under them). */
  readonly maxDepth: number;
  /** Folder names never watched, wherever they are: they hold no sessions and can be large. */
  readonly skipped: ReadonlySet<string>;
  /** Something at `path` changed; `renamed` when an entry came, went or was renamed, which may be a folder. */
  readonly onNotice: (path: string, renamed: boolean) => void;
  /** A watch reported a change without a name: everything is to be looked at again. */
  readonly onLost: () => void;
}

interface Watched {
  readonly watcher: FSWatcher;
  readonly depth: number;
  /** The folder's inode: a folder removed and made again under the same path needs a new watch. */
  readonly ino: number;
  /** Where it really is: a linked folder is watched once, under the first path it was found by. */
  readonly real: string;
}

export class FolderTree {
  private readonly folders = new Map<string, Watched>();
  private readonly reals = new Set<string>();
  private closed = false;

  constructor(
    readonly root: string,
    private readonly options: FolderTreeOptions,
  ) {}

  /** The folders watched now. */
  get size(): number {
    return this.folders.size;
  }

  /** Whether `path` is the root or under it. */
  holds(path: string): boolean {
    return path === this.root || path.startsWith(`${this.root}/`);
  }

  /**
   * Watches `dir` (the root when not given) and every folder under it not watched yet. With
   * `announce`, every entry found is noticed: a folder that appeared while the daemon watched may
   * have had files written into it before its own watch began.
   */
  async attach(dir = this.root, depth = 0, announce = false): Promise<void> {
    if (!this.watchOne(dir, depth)) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (this.closed) return;
      const path = join(dir, e.name);
      if (announce) this.options.onNotice(path, true);
      if (depth >= this.options.maxDepth || this.options.skipped.has(e.name)) continue;
      if (e.isDirectory() || (e.isSymbolicLink() && (await isFolder(path))))
        await this.attach(path, depth + 1, announce);
    }
  }

  /**
   * A folder under the root that a walk went through: watched now if it is not (its notice was
   * lost, or its watch could not be made then). Its entries are the walk's to look at.
   */
  saw(dir: string, real: string): void {
    if (this.folders.has(dir) || this.reals.has(real) || !this.holds(dir)) return;
    const depth = dir === this.root ? 0 : dir.slice(this.root.length + 1).split('/').length;
    if (depth <= this.options.maxDepth) this.watchOne(dir, depth, real);
  }

  /**
   * Entries that came, went or were renamed: a folder gone (or made again under its path) leaves the
   * watch with everything under it, a new folder is watched with the folders under it.
   */
  settle(paths: Iterable<string>): void {
    for (const path of paths) {
      if (this.closed) return;
      // A watched folder removed reports its own name as renamed: its parent is looked at too.
      for (const candidate of [path, dirname(path)]) {
        const watched = this.folders.get(candidate);
        if (!watched) continue;
        const now = folderStat(candidate);
        if (now?.ino !== watched.ino) this.detach(candidate);
      }
      const parent = this.folders.get(dirname(path));
      if (this.folders.has(path) || !parent || parent.depth >= this.options.maxDepth) continue;
      const name = path.slice(dirname(path).length + 1);
      if (this.options.skipped.has(name) || !folderStat(path)) continue;
      void this.attach(path, parent.depth + 1, true);
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.folders.values()) w.watcher.close();
    this.folders.clear();
    this.reals.clear();
  }

  /** Watches one folder; false when it is watched already (under this path or another), gone, or
   * the watch could not be made (the system's limit on watches reached: the walks cover it). */
  private watchOne(dir: string, depth: number, knownReal?: string): boolean {
    if (this.closed || this.folders.has(dir)) return false;
    const st = folderStat(dir);
    if (!st) return false;
    let real = knownReal;
    try {
      real ??= realpathSync(dir);
    } catch {
      return false;
    }
    if (this.reals.has(real)) return false;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (event, name) => {
        if (name) this.options.onNotice(join(dir, name.toString()), event === 'rename');
        else this.options.onLost();
      });
    } catch {
      return false;
    }
    watcher.on('error', () => this.detach(dir));
    this.folders.set(dir, { watcher, depth, ino: st.ino, real });
    this.reals.add(real);
    return true;
  }

  /** Stops watching `dir` and every folder under it. */
  private detach(dir: string): void {
    for (const [path, w] of this.folders) {
      if (path !== dir && !path.startsWith(`${dir}/`)) continue;
      w.watcher.close();
      this.folders.delete(path);
      this.reals.delete(w.real);
    }
  }
}

function folderStat(path: string): Stats | undefined {
  try {
    const st = statSync(path);
    return st.isDirectory() ? st : undefined;
  } catch {
    return undefined;
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
