// Platforms whose agent homes point at the corpus or at temporary folders.
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePlatform, type SessionPlatform } from '../src/index.js';
import { corpusPath } from './corpus.js';

/** A temporary folder that stands for a user's home. */
export const tempHome = (): string => mkdtempSync(join(tmpdir(), 'cairn-home-'));

/** The corpus as the three agents' homes; the user's home is empty so nothing else is read. */
export function corpusPlatform(): SessionPlatform {
  const home = tempHome();
  symlinkSync(corpusPath('gemini'), join(home, '.gemini'));
  return nodePlatform({
    homeDir: home,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: corpusPath('claude'),
      CODEX_HOME: corpusPath('codex'),
      GEMINI_CLI_HOME: home,
    },
  });
}

/** Agents' homes inside `home` (which the test fills). */
export function tempPlatform(home: string): SessionPlatform {
  return nodePlatform({
    homeDir: home,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CODEX_HOME: join(home, '.codex'),
      GEMINI_CLI_HOME: home,
    },
  });
}
