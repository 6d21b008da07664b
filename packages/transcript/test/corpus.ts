// Where the shared corpus of real sessions is. Tests read it in place and never write to it.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `$CAIRN_CORPUS`, else `../shared/corpus` beside the checkout; undefined when absent outside CI. */
export function corpusDir(): string | undefined {
  const dir = process.env.CAIRN_CORPUS ?? resolve(repoRoot, '../shared/corpus');
  if (existsSync(dir)) return dir;
  if (process.env.CI) throw new Error(`the shared corpus is missing at ${dir} (set CAIRN_CORPUS)`);
  return undefined;
}

/** The corpus folder, or a reason to skip (never under CI, where corpusDir throws). */
export const corpus = corpusDir();
export const corpusPath = (...parts: string[]): string => join(corpus ?? '/nonexistent-corpus', ...parts);
