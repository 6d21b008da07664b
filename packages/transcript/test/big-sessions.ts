// Very large sessions made from the corpus's, for the tests of reads whose memory must not grow with
// the file.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from './corpus.js';

export const CLAUDE_SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const CLAUDE_DIR = 'claude/projects/-work-spotter';

/** The corpus's largest Claude Code main file. */
export const claudeSource = (): string => readFileSync(corpusPath(CLAUDE_DIR, `${CLAUDE_SID}.jsonl`), 'utf8');

/**
 * A Claude Code session of `copies` copies of the corpus's largest main file, each copy's messages,
 * requests and records with ids of their own, so that every copy counts. With `subagents`, the
 * corpus session's subagent files lie beside it.
 */
export function bigClaudeSession(
  home: string,
  copies: number,
  { subagents = false }: { subagents?: boolean } = {},
): { path: string; one: string } {
  const dir = join(home, '.claude/projects/-big');
  mkdirSync(dir, { recursive: true });
  const one = claudeSource();
  const path = join(dir, `${CLAUDE_SID}.jsonl`);
  const parts: string[] = [];
  for (let n = 0; n < copies; n++)
    parts.push(
      one
        .replaceAll('"msg_', `"msg_${n}_`)
        .replaceAll('"req_', `"req_${n}_`)
        .replaceAll('"uuid":"', `"uuid":"${n}-`),
    );
  writeFileSync(path, parts.join(''));
  if (subagents)
    cpSync(corpusPath(CLAUDE_DIR, CLAUDE_SID, 'subagents'), join(dir, CLAUDE_SID, 'subagents'), {
      recursive: true,
    });
  return { path, one };
}
