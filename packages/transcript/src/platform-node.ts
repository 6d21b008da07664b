// The SessionPlatform of a Node process: real files, the process environment.
import { isUtf8 } from 'node:buffer';
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DirEntry, SessionPlatform } from './platform.js';

export interface NodePlatformOptions {
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
}

export function nodePlatform(options: NodePlatformOptions = {}): SessionPlatform {
  return {
    env: options.env ?? process.env,
    homeDir: options.homeDir ?? options.env?.HOME ?? homedir(),
    join,
    isWellFormedUtf8: isUtf8,
    fs: {
      readFile: (path, signal) => readFile(path, signal ? { signal } : {}),
      async readRange(path, offset, length, into) {
        const handle = await open(path, 'r');
        try {
          const buf = into ?? Buffer.allocUnsafe(length);
          const { bytesRead } = await handle.read(buf, 0, length, offset);
          return buf.subarray(0, bytesRead);
        } finally {
          await handle.close();
        }
      },
      async stat(path) {
        const s = await stat(path);
        return { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
      },
      async readdir(path) {
        const entries = await readdir(path, { withFileTypes: true });
        return Promise.all(
          entries.map(async (e): Promise<DirEntry> => {
            if (!e.isSymbolicLink())
              return { name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory() };
            // A link counts as what it points to; one that points nowhere is neither, and still listed.
            try {
              const s = await stat(join(path, e.name));
              return { name: e.name, isFile: s.isFile(), isDirectory: s.isDirectory(), isSymbolicLink: true };
            } catch {
              return { name: e.name, isFile: false, isDirectory: false, isSymbolicLink: true };
            }
          }),
        );
      },
      realpath: (path) => realpath(path),
    },
  };
}
