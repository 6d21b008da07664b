// Agent homes for tests: the corpus, or temporary folders a test fills. Every package's tests
// take their environments and platforms from here.
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePlatform, type SessionPlatform } from '../src/index.js';
import { corpusPath } from './corpus.js';

/** A temporary folder that stands for a user's home. */
export const tempHome = (): string => mkdtempSync(join(tmpdir(), 'cairn-home-'));

/** The corpus as the three agents' homes, in an otherwise empty home (Gemini's is `~/.gemini`). */
export function corpusEnv(): Record<string, string> {
  const home = tempHome();
  symlinkSync(corpusPath('gemini'), join(home, '.gemini'));
  return {
    HOME: home,
    CLAUDE_CONFIG_DIR: corpusPath('claude'),
    CODEX_HOME: corpusPath('codex'),
    GEMINI_CLI_HOME: home,
  };
}

/** Agents' homes inside `home`, which the test fills. */
export function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CODEX_HOME: join(home, '.codex'),
    GEMINI_CLI_HOME: home,
  };
}

const platformOf = (env: Record<string, string>): SessionPlatform => nodePlatform({ homeDir: env.HOME, env });

/** The corpus as the three agents' homes; the user's home is empty so nothing else is read. */
export const corpusPlatform = (): SessionPlatform => platformOf(corpusEnv());

/** Agents' homes inside `home` (which the test fills). */
export const tempPlatform = (home: string): SessionPlatform => platformOf(homeEnv(home));

/** `base` with every whole-file read and the path and length of every ranged one noted, to show
 * how a reader takes a file. */
export function watchedPlatform(base: SessionPlatform) {
  const wholeReads: string[] = [];
  const rangeReads: { path: string; length: number }[] = [];
  const platform: SessionPlatform = {
    ...base,
    fs: {
      ...base.fs,
      readFile: (path, signal) => {
        wholeReads.push(path);
        return base.fs.readFile(path, signal);
      },
      readRange: async (path, offset, length, into) => {
        const data = await base.fs.readRange(path, offset, length, into);
        rangeReads.push({ path, length: data.length });
        return data;
      },
    },
  };
  return { platform, wholeReads, rangeReads };
}
