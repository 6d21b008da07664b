// Following the agents' homes: the file system's change notices, coalesced into batches, with a
// periodic walk behind them for whatever a notice missed (a home created later, an editor's rename).
import { type FSWatcher, watch } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isStoreFileName, storeSessionPath, storeSessionStamps } from '@cairn/transcript';
import { FolderTree } from './folder-tree.js';
import type { FileStamp } from './source-files.js';

/** Session files of every supported agent end so; anything else under a home is not looked at. */
export const SESSION_FILE_NAME = /\.(jsonl|json|jsonl\.zst)$/;

/** Folders that hold no session files and can be large. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'tool-results', '.git']);

const MAX_DEPTH = 10;

/** Every session-like file under `roots`, with its size, mtime and inode. Missing roots are empty. */
export async function walkRoots(
  roots: readonly string[],
  /** Folders whose SQLite stores (OpenCode's family) hold sessions: each session stands as a file. */
  stores: readonly string[] = [],
  /** Told of each folder walked, so that the watcher can follow any it missed. */
  onFolder?: (dir: string, real: string) => void,
): Promise<Map<string, FileStamp>> {
  const found = new Map<string, FileStamp>();
  // Linked folders are walked wherever they point, each real folder once per root, as the listing
  // does: a link back up the tree would otherwise show every file again under ever longer paths.
  const walked = new Set<string>();
  const walk = async (dir: string, depth: number): Promise<void> => {
    try {
      const real = await realpath(dir);
      if (walked.has(real)) return;
      walked.add(real);
      onFolder?.(dir, real);
    } catch {
      return;
    }
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH && !SKIPPED_FOLDERS.has(e.name)) await walk(path, depth + 1);
      } else if ((e.isFile() || e.isSymbolicLink()) && SESSION_FILE_NAME.test(e.name)) {
        try {
          const s = await stat(path);
          if (s.isFile()) found.set(path, { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino });
        } catch {
          // Gone between the listing and the stat: the next walk will not see it either.
        }
      } else if (e.isSymbolicLink()) {
        try {
          if ((await stat(path)).isDirectory() && depth < MAX_DEPTH) await walk(path, depth + 1);
        } catch {
          // A dangling link leads nowhere.
        }
      }
    }
  };
  for (const root of roots) {
    walked.clear();
    await walk(root, 0);
  }
  for (const dir of stores) await walkStores(dir, found);
  return found;
}

/** Each session of the stores in `dir` under its own name (`<db>#<id>`), stamped by its rows. */
async function walkStores(dir: string, found: Map<string, FileStamp>): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (!isStoreFileName(name)) continue;
    const db = join(dir, name);
    try {
      for (const [id, st] of await storeSessionStamps(db)) found.set(storeSessionPath(db, id), st);
    } catch {
      // Busy or unreadable now: its known sessions are looked at one by one, the next walk tries again.
    }
  }
}

export interface WatcherOptions {
  readonly roots: readonly string[];
  /** Folders watched without their subfolders: those holding SQLite stores, whose other folders
   * (an agent's snapshots, logs) hold no sessions and can be large. */
  readonly flatRoots?: readonly string[];
  /** Paths that changed, each once per batch. */
  readonly onChange: (paths: Set<string>) => void;
  /** Time for a full walk: a root appeared, a notice was lost, or the interval came round. The
   * promise, when given, settles when the walk is done. */
  readonly onRescan: () => void | Promise<void>;
  /** A batch goes out this long after the last notice… */
  readonly quietMs?: number;
  /** …or this long after the first, whichever comes first, so a steady stream still flows. */
  readonly maxWaitMs?: number;
  /** The least time between two walks the interval asks for. */
  readonly rescanMs?: number;
}

/**
 * The share of the time the interval's walks may take, a long one spacing out the next: a twentieth
 * for a walk of up to SHORT_WALK_MS, less the longer the walk. The walk only catches what the
 * notices missed, so a home of 20,000 sessions, whose walk takes about three seconds, is walked
 * every twenty minutes or so rather than keep an idle daemon busy.
 */
const walkShare = (tookMs: number): number => Math.min(1 / 20, SHORT_WALK_MS / 20 / tookMs);
const SHORT_WALK_MS = 150;
/** However long the walk, the next one within the hour (and a delay a timer can hold). */
const LONGEST_RESCAN_MS = 60 * 60_000;

/** Where Node's recursive watch is the system's own (one handle for a whole tree); elsewhere it
 * watches each file on its own, and the watcher follows the folders one by one instead. */
const NATIVE_RECURSIVE = process.platform === 'darwin' || process.platform === 'win32';

/**
 * Change notices from watches on the roots, coalesced: a burst of writes to one file becomes one
 * batch. The notices only say where to look; what changed is decided by reading.
 */
export class Watcher {
  /** Roots under one recursive watch of the system's. */
  private readonly watchers = new Map<string, FSWatcher>();
  /** Roots whose folders are watched one by one. */
  private readonly trees = new Map<string, FolderTree>();
  private pending = new Set<string>();
  /** Paths of the batch that came, went or were renamed: new folders to watch, or watched ones gone. */
  private renamed = new Set<string>();
  /** The walks that watch a root's folders, while they run. */
  private readonly attaching = new Set<Promise<void>>();
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: WatcherOptions) {}

  start(): void {
    this.attach();
    this.nextRescan(this.rescanMs);
  }

  private get rescanMs(): number {
    return this.options.rescanMs ?? 5_000;
  }

  /** The walk that catches what notices missed: every `rescanMs`, or longer when walks are long
   * (thousands of sessions), so that it takes no more than its share of the time (walkShare). */
  private nextRescan(delay: number): void {
    this.rescanTimer = setTimeout(async () => {
      this.attach();
      const started = performance.now();
      await this.options.onRescan();
      if (this.closed) return;
      const took = performance.now() - started;
      this.nextRescan(Math.max(this.rescanMs, Math.min(took / walkShare(took), LONGEST_RESCAN_MS)));
    }, delay);
    this.rescanTimer.unref();
  }

  /** Settles once every folder found when its root was first watched is watched: a change before
   * then may be seen by the interval walk only. */
  async attached(): Promise<void> {
    await Promise.all(this.attaching);
  }

  /** The folders watched one by one now, across every root. */
  get foldersWatched(): number {
    let n = 0;
    for (const t of this.trees.values()) n += t.size;
    return n;
  }

  /** A folder a walk of the roots went through (see walkRoots): watched if it was missed. */
  readonly sawFolder = (dir: string, real: string): void => {
    for (const tree of this.trees.values()) tree.saw(dir, real);
  };

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const t of this.trees.values()) t.close();
    this.trees.clear();
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    clearTimeout(this.rescanTimer);
  }

  /** Watches the roots that exist and are not watched yet. */
  private attach(): void {
    const flat = new Set(this.options.flatRoots ?? []);
    for (const root of [...this.options.roots, ...flat]) {
      if (this.closed) return;
      if (!NATIVE_RECURSIVE || flat.has(root)) {
        let tree = this.trees.get(root);
        if (!tree) {
          tree = new FolderTree(root, {
            maxDepth: flat.has(root) ? 0 : MAX_DEPTH,
            skipped: SKIPPED_FOLDERS,
            onNotice: (path, renamed) => this.notice(path, renamed),
            onLost: () => void this.options.onRescan(),
          });
          this.trees.set(root, tree);
        }
        // A root gone (or not there yet) has no folder watched; the next rescan tries again.
        if (tree.size === 0) {
          const walk = tree.attach().finally(() => this.attaching.delete(walk));
          this.attaching.add(walk);
        }
        continue;
      }
      if (this.watchers.has(root)) continue;
      try {
        const w = watch(root, { recursive: true, persistent: false }, (_event, name) => {
          if (name) this.notice(join(root, name.toString()));
          else void this.options.onRescan();
        });
        w.on('error', () => {
          // The root went away; the next rescan attaches again when it is back.
          w.close();
          this.watchers.delete(root);
        });
        this.watchers.set(root, w);
      } catch {
        // Not there yet.
      }
    }
  }

  private notice(path: string, renamed = false): void {
    if (this.closed) return;
    this.pending.add(path);
    if (renamed) this.renamed.add(path);
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.quietMs ?? 20);
    this.maxTimer ??= setTimeout(() => this.flush(), this.options.maxWaitMs ?? 200);
  }

  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = undefined;
    this.maxTimer = undefined;
    if (this.pending.size === 0 || this.closed) return;
    const batch = this.pending;
    this.pending = new Set();
    const renamed = this.renamed;
    this.renamed = new Set();
    // New folders are watched before the batch goes out: the look it brings on comes after their watch.
    for (const tree of this.trees.values()) tree.settle([...renamed].filter((p) => tree.holds(p)));
    this.options.onChange(batch);
  }
}
