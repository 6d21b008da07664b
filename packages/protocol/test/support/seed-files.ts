// Where the contracts cairn implements are kept. Tests read them in place and never write to them.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * The path of one contract file: under `$CAIRN_SEEDS`, else `../shared/seeds` beside the checkout.
 * Undefined when it is absent outside CI; under CI a missing contract fails the run instead.
 */
export function seedFile(name: string): string | undefined {
  const dir = process.env.CAIRN_SEEDS ?? resolve(repoRoot, '../shared/seeds');
  const file = join(dir, name);
  if (existsSync(file)) return file;
  if (process.env.CI) throw new Error(`the contract ${name} is missing at ${file} (set CAIRN_SEEDS)`);
  return undefined;
}

/**
 * The source of one file of a contract given as a diff: the added lines of the hunk that follows
 * the line naming the file, without their leading `+`. Throws when the file is not in the text.
 */
export function addedSource(diff: string, path: string): string {
  const lines = diff.split('\n');
  const at = lines.findIndex((line) => line.trim() === path);
  if (at < 0) throw new Error(`${path} is not in the contract`);
  let index = at + 1;
  while (index < lines.length && !lines[index]!.startsWith('@@')) index++;
  const out: string[] = [];
  for (index++; index < lines.length && lines[index]!.startsWith('+'); index++) {
    out.push(lines[index]!.slice(1));
  }
  if (out.length === 0) throw new Error(`${path} has no added lines in the contract`);
  return `${out.join('\n')}\n`;
}
