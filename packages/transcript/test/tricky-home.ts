// A hand-made set of agent homes with every way a session file can lie, built from the corpus in a
// temporary folder: for the tests that every session is found.
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from './corpus.js';
import { tempHome } from './homes.js';

export const SPOTTER = ['claude', 'projects', '-work-spotter'];
export const BIG = '4d5611e5-241a-462a-8d15-5122611a9569';
export const OTHER = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

/**
 * A hand-made home with every way a session file can lie: linked files and folders of all three
 * agents, a link to nothing, a folder link back up the tree, sessions without their main file,
 * older subagent files beside the sessions, workflow subagents, an archived rollout.
 */
export function trickyHome(): string {
  const home = tempHome();
  const project = join(home, '.claude', 'projects', '-src-app');
  mkdirSync(project, { recursive: true });
  symlinkSync(corpusPath(...SPOTTER, 'short.jsonl'), join(project, 'linked.jsonl'));
  symlinkSync(join(home, 'nowhere.jsonl'), join(project, 'dangling.jsonl'));
  cpSync(corpusPath(...SPOTTER, 'tool_heavy.jsonl'), join(project, 'plain.jsonl'));
  // A linked project folder.
  symlinkSync(
    corpusPath('claude', 'projects', '-Users-yoavfarhi-dev-pomodoro-claude'),
    join(home, '.claude', 'projects', '-linked'),
  );
  // A session whose main file is gone, its subagent files reached through a link.
  const orphan = join(project, 'gone', 'subagents');
  mkdirSync(join(orphan, 'workflows', 'wf_1'), { recursive: true });
  symlinkSync(
    corpusPath(...SPOTTER, BIG, 'subagents', 'agent-a2898e3.jsonl'),
    join(orphan, 'agent-a2898e3.jsonl'),
  );
  cpSync(
    corpusPath(...SPOTTER, BIG, 'subagents', 'agent-acompact-e1f845.jsonl'),
    join(orphan, 'workflows', 'wf_1', 'agent-acompact-e1f845.jsonl'),
  );
  // An older CLI's subagent file beside the sessions, of a session that is not there.
  cpSync(
    corpusPath(...SPOTTER, OTHER, 'subagents', 'agent-a93ccab.jsonl'),
    join(project, 'agent-a93ccab.jsonl'),
  );

  const day = join(home, '.codex', 'sessions', '2026', '02', '23');
  mkdirSync(day, { recursive: true });
  const rollouts = readdirSync(corpusPath('codex', 'sessions', '2026', '02', '23')).sort();
  symlinkSync(corpusPath('codex', 'sessions', '2026', '02', '23', rollouts[0]!), join(day, rollouts[0]!));
  cpSync(corpusPath('codex', 'sessions', '2026', '02', '23', rollouts[1]!), join(day, rollouts[1]!));
  symlinkSync(
    join(home, 'nothing'),
    join(day, 'rollout-2026-02-23T23-59-59-019c8a4d-0000-7000-8000-000000000000.jsonl'),
  );
  // A folder link back up the tree, and a linked folder of rollouts.
  symlinkSync(join(home, '.codex', 'sessions'), join(day, 'loop'));
  symlinkSync(corpusPath('codex', 'sessions', '2025'), join(home, '.codex', 'sessions', '2025'));
  const archived = join(home, '.codex', 'archived_sessions');
  mkdirSync(archived, { recursive: true });
  cpSync(corpusPath('codex', 'sessions', '2026', '02', '23', rollouts[2]!), join(archived, rollouts[2]!));

  const tmp = join(home, '.gemini', 'tmp');
  mkdirSync(tmp, { recursive: true });
  const project1 = readdirSync(corpusPath('gemini', 'tmp'))[0]!;
  const chats = join(tmp, 'p1', 'chats');
  mkdirSync(chats, { recursive: true });
  const legacy = readdirSync(corpusPath('gemini', 'tmp', project1, 'chats'))[0]!;
  symlinkSync(corpusPath('gemini', 'tmp', project1, 'chats', legacy), join(chats, legacy));
  // A subagent's file in the folder of a main session that is gone.
  mkdirSync(join(chats, 'gone-parent'), { recursive: true });
  cpSync(corpusPath('more', 'gemini', 'jsonl_v040.jsonl'), join(chats, 'gone-parent', 'sub.jsonl'));
  return home;
}
