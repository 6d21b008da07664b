// The Codex rollouts of the corpus, read as the adapter receives them.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SourceFile } from '../../src/adapter.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { finishTranscript } from '../../src/load.js';
import type { Transcript } from '../../src/model.js';
import { corpus, corpusPath } from '../corpus.js';

export const codexHome = corpusPath('codex');

/** Every rollout under the corpus's Codex home, in path order. */
export const rollouts: string[] = corpus
  ? readdirSync(codexHome, { recursive: true, encoding: 'utf8' })
      .filter((p) => /^rollout-.*\.jsonl(\.zst)?$/.test(basename(p)))
      .map((p) => join(codexHome, p))
      .sort()
  : [];

/** The corpus rollout whose file name contains `part`. */
export const rollout = (part: string): string => {
  const found = rollouts.filter((p) => basename(p).includes(part));
  if (found.length !== 1) throw new Error(`${found.length} corpus rollouts match ${part}`);
  return found[0]!;
};

export const sourceFile = (path: string): SourceFile => ({ path, data: readFileSync(path) });

/** A rollout translated and finished as the library would load it. */
export function load(path: string): Transcript {
  const r = codexAdapter.translate([sourceFile(path)]);
  if (!r.ok) throw new Error(r.error.message);
  return finishTranscript('codex', r.value);
}
