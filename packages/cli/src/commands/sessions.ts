// cairn sessions: every session of every agent, newest activity first.
import {
  agentHomes,
  cairnHome,
  findAdapter,
  listSessions,
  type SessionHead,
  type SessionPlatform,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { bytes, oneLine, shortTime } from '../format.js';
import { MARKS_OPTIONS, marksFilter } from '../marks-filter.js';
import { progressBar } from '../progress.js';
import { withLinks } from '../session-links.js';
import { listingFilter } from '../sessions-filter.js';
import { noPositionals, parseCommand } from '../usage.js';

const USAGE =
  'cairn sessions [--agent A] [--project DIR] [--since T] [--until T] [--limit N] [--tag T]... [--starred] [--json]';

export async function sessionsCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      agent: { type: 'string' },
      project: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      ...MARKS_OPTIONS,
      json: { type: 'boolean' },
    },
    USAGE,
  );
  noPositionals(positionals, USAGE);
  const agent = agentOption(values.agent, USAGE);
  const filter = listingFilter(values, USAGE);
  const marks = await marksFilter(values, cairnHome(platform.env, platform.homeDir), USAGE);
  const heads: SessionHead[] = [];
  const errors: { ref: string; error: string }[] = [];
  const progress = progressBar('listing');
  for await (const entry of listSessions(platform, agent ? { agent } : {})) {
    if ('ref' in entry) errors.push({ ref: entry.ref, error: entry.error.message });
    else heads.push(entry);
    progress.update(heads.length);
  }
  progress.done();
  heads.sort((a, b) => (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0));
  const shown = filter.apply(marks ? heads.filter((h) => marks.keeps(h.agent, h.id)) : heads);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ sessions: await withLinks(platform, shown), errors }, null, 2)}\n`,
    );
    return 0;
  }
  for (const h of shown) {
    const what = oneLine(h.title ?? h.firstPrompt ?? '', 60);
    process.stdout.write(
      `${h.agent.padEnd(11)} ${h.id.padEnd(36)} ${shortTime(h.lastActivityAt)} ${bytes(h.size).padStart(8)}  ${what}\n`,
    );
  }
  for (const e of errors) process.stderr.write(`cairn: ${e.error}\n`);
  if (heads.length === 0 && errors.length === 0) process.stderr.write(nothingFound(platform, agent));
  else if (shown.length === 0)
    process.stderr.write(
      `cairn: none of ${heads.length} sessions ${emptied(filter.described, marks?.described)}\n`,
    );
  return 0;
}

/** What emptied a listing: the listing filter's words, with the marks asked for after them. */
function emptied(listing: string, marks: string | undefined): string {
  if (marks === undefined) return listing;
  return listing === 'match the filter' ? `match ${marks}` : `${listing} ${marks}`;
}

/** An empty listing names the folders it read, so a wrong or unset home is plain to see. */
function nothingFound(platform: SessionPlatform, agent: string | undefined): string {
  const only = agent === undefined ? undefined : findAdapter(agent)?.id;
  const rows = agentHomes(platform).filter((a) => only === undefined || a.agent === only);
  const width = Math.max(...rows.map((r) => r.agent.length));
  const lines = rows.map((r) => `  ${r.agent.padEnd(width)}  ${r.homes.join(', ')}`);
  return [
    'cairn: no sessions found. Looked in:',
    ...lines,
    'Set CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, QWEN_HOME, PI_CODING_AGENT_DIR or COPILOT_HOME to read sessions kept elsewhere.',
    'OpenCode and Kilo are read under XDG_DATA_HOME (also under OPENCODE_DATA_DIR and KILO_DATA_DIR).',
    '',
  ].join('\n');
}
