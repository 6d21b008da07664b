// Long sessions made from corpus sessions by repeating their records, each copy's ids its own: for
// the tests of reading in parts, whose cuts must cross calls, results and compactions.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corpusPath } from '../corpus.js';

const CLAUDE = 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const CODEX =
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

/**
 * A long Claude Code session: the corpus's session with a compaction and three subagents, its main
 * file `copies` times over (so as many compactions), beside its subagents' files. Answers its path.
 */
export function longClaudeSession(home: string, copies: number): string {
  const folder = join(home, '.claude', 'projects', '-work-long');
  const main = join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  mkdirSync(join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents'), { recursive: true });
  const one = readFileSync(corpusPath(`${CLAUDE}.jsonl`), 'utf8');
  const copy = (n: number) =>
    n === 0 ? one : one.replaceAll('"msg_', `"msg_${n}_`).replaceAll('"uuid":"', `"uuid":"${n}-`);
  let text = '';
  for (let n = 0; n < copies; n++) text += copy(n);
  writeFileSync(main, text);
  for (const name of readdirSync(corpusPath(CLAUDE, 'subagents')))
    copyFileSync(
      corpusPath(CLAUDE, 'subagents', name),
      join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', name),
    );
  return main;
}

/** A long Codex rollout: the corpus's largest (it holds a compaction), its records after the first
 * three times over, each copy's call ids its own. Answers its path. */
export function longRollout(home: string): string {
  const path = join(home, '.codex', 'sessions', 'long', CODEX.split('/').pop()!);
  mkdirSync(dirname(path), { recursive: true });
  const [meta, ...body] = readFileSync(corpusPath(CODEX), 'utf8').split('\n').filter(Boolean);
  const block = `${body.join('\n')}\n`;
  let text = `${meta}\n`;
  for (let n = 1; n <= 3; n++) text += block.replaceAll(/"call_(?!id")/g, `"call_${n}_`);
  writeFileSync(path, text);
  return path;
}
