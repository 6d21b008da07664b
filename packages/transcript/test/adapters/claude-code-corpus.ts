// The Claude Code sessions of the corpus, found here independently of the adapter's own listing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { finishTranscript } from '../../src/load.js';
import type { Transcript } from '../../src/model.js';
import { corpus, corpusPath } from '../corpus.js';

export interface ClaudeSession {
  /** The main file's name without `.jsonl`. */
  id: string;
  /** The main file, then `<id>/subagents/agent-*.jsonl` sorted. */
  files: string[];
}

function discover(): ClaudeSession[] {
  const projects = corpusPath('claude', 'projects');
  const sessions: ClaudeSession[] = [];
  for (const dir of readdirSync(projects).sort()) {
    for (const name of readdirSync(join(projects, dir)).sort()) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      const sub = join(projects, dir, id, 'subagents');
      const subagents = existsSync(sub)
        ? readdirSync(sub)
            .filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl'))
            .sort()
            .map((n) => join(sub, n))
        : [];
      sessions.push({ id, files: [join(projects, dir, name), ...subagents] });
    }
  }
  return sessions;
}

export const claudeSessions: ClaudeSession[] = corpus ? discover() : [];

export const claudeSession = (idPrefix: string): ClaudeSession => {
  const found = claudeSessions.find((s) => s.id.startsWith(idPrefix));
  if (!found) throw new Error(`no corpus session ${idPrefix}`);
  return found;
};

export const sourceFiles = (s: ClaudeSession): SourceFile[] =>
  s.files.map((path) => ({ path, data: readFileSync(path) }));

export function translate(s: ClaudeSession): TranslatedSession {
  const r = claudeCodeAdapter.translate(sourceFiles(s));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

export const load = (s: ClaudeSession): Transcript => finishTranscript(claudeCodeAdapter.id, translate(s));

/** Every line of a file, parsed (the corpus has no malformed line). */
export const records = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
