// What the library needs from the machine it runs on. Adapters' translation never touches it,
// so translation also runs in a browser; listing and loading go through it.

/** A folder entry. A symbolic link reports what it points to (neither a file nor a folder when it
 * points nowhere) and is marked as a link. */
export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink?: boolean;
}

export interface FileStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

export interface PlatformFs {
  readFile(path: string, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Up to `length` bytes from `offset` (fewer at the end of the file); into the start of `into` when
   * given (it holds at least `length`), so that a long read in parts reuses one buffer.
   */
  readRange(path: string, offset: number, length: number, into?: Uint8Array): Promise<Uint8Array>;
  stat(path: string): Promise<FileStat>;
  readdir(path: string): Promise<DirEntry[]>;
  /** Optional: the path with every symbolic link resolved, so a walk can tell a folder it has seen. */
  realpath?(path: string): Promise<string>;
}

export interface SessionPlatform {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home folder, the base of every default agent home. */
  readonly homeDir: string;
  readonly fs: PlatformFs;
  /** Joins path segments with the platform's separator. */
  join(...parts: string[]): string;
  /** Optional: whether bytes are well-formed UTF-8, checked natively (lets readers skip decoding). */
  isWellFormedUtf8?(data: Uint8Array): boolean;
}
