// cairn search: the daemon's full-text search from the terminal. A running daemon answers; with
// none, the server is started here for the one query, on the same index in $CAIRN_HOME (brought up
// to date first) and stopped after, so both ways give the same hits.
import type { SearchTarget, SessionSearchArgs, SessionSearchHit } from '@cairn/protocol';
import { snippetParts } from '@cairn/protocol';
import { startServer } from '@cairn/server';
import { cairnHome, findAdapter, type SessionPlatform } from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { openDaemonSocket, type RunningDaemon, runningDaemon } from '../daemon-socket.js';
import { MARKS_OPTIONS, type MarksFilter, marksFilter } from '../marks-filter.js';
import { withoutEscapes } from '../terminal-text.js';
import { parseTime, TIME_FORMS } from '../time.js';
import { Failure, parseCommand, UsageError } from '../usage.js';

const USAGE =
  'cairn search "<words>" [--agent A] [--project P] [--since T] [--in prompts,replies,thinking,tools,outputs] [--limit N] [--tag T]... [--starred] [--json]';

/** The words `--in` takes, as the search names its targets. */
const TARGETS: Record<string, SearchTarget> = {
  prompts: 'prompt',
  replies: 'assistant',
  thinking: 'thinking',
  tools: 'tool_input',
  outputs: 'tool_output',
};

/** One `session_search` over the daemon's socket (one per marked session, with `marked`); undefined
 * when it cannot be reached. */
async function searchOver(
  daemon: RunningDaemon,
  args: SessionSearchArgs,
  marked?: MarksFilter,
): Promise<Record<string, unknown> | undefined> {
  const socket = await openDaemonSocket(daemon);
  if (!socket) return undefined;
  try {
    const hello = await socket.request('hello', { role: 'user', protocol_version: 1 });
    if (hello.ok !== true)
      throw new Failure(`the daemon refused the connection: ${JSON.stringify(hello.error)}`);
    if (!marked) return await socket.request('session_search', args);
    return await searchMarked(marked, args, (body) => socket.request('session_search', body));
  } finally {
    socket.close();
  }
}

/**
 * The search narrowed to marked sessions: the index takes one session at a time, so each marked
 * session is searched on its own and the hits merged, best first, to the limit asked for. A person
 * marks few sessions, so this is a few small queries rather than paging through every hit.
 */
async function searchMarked(
  marked: MarksFilter,
  args: SessionSearchArgs,
  search: (args: SessionSearchArgs) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const hits: SessionSearchHit[] = [];
  let partial = false;
  for (const key of marked.sessions) {
    const [agent, sid] = key.split('\u0000') as [string, string];
    if (args.agents !== undefined && !args.agents.includes(agent)) continue;
    const reply = await search({ ...args, agents: [agent], sid });
    if (reply.ok !== true) return reply;
    hits.push(...(reply.hits as SessionSearchHit[]));
    partial ||= reply.partial === true;
  }
  // Stable: hits of one session keep the index's order among equal scores.
  hits.sort((a, b) => b.score - a.score);
  return { ok: true, hits: hits.slice(0, args.limit ?? SEARCH_LIMIT), partial };
}

/** The daemon's page size when no --limit is given. */
const SEARCH_LIMIT = 50;

export async function searchCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      agent: { type: 'string' },
      project: { type: 'string' },
      since: { type: 'string' },
      in: { type: 'string' },
      limit: { type: 'string' },
      ...MARKS_OPTIONS,
      json: { type: 'boolean' },
    },
    USAGE,
  );
  const query = positionals.join(' ').trim();
  if (query === '') throw new UsageError(`missing "<words>"\nusage: ${USAGE}`);
  const args: SessionSearchArgs = { query };
  const agent = agentOption(values.agent, USAGE);
  // The index knows agents by id, not by alias.
  if (agent !== undefined) args.agents = [findAdapter(agent)?.id ?? agent];
  if (values.project !== undefined) {
    if (values.project === '') throw new UsageError(`--project is empty\nusage: ${USAGE}`);
    args.cwd = values.project;
  }
  if (values.since !== undefined) {
    const at = parseTime(values.since, Date.now());
    if (at === undefined)
      throw new UsageError(`bad --since '${values.since}': give ${TIME_FORMS}\nusage: ${USAGE}`);
    args.since_at = at;
  }
  if (values.in !== undefined) {
    const targets = values.in.split(',').map((w) => {
      const target = TARGETS[w.trim()];
      if (!target)
        throw new UsageError(`bad --in '${w}': give ${Object.keys(TARGETS).join(', ')}\nusage: ${USAGE}`);
      return target;
    });
    args.targets = [...new Set(targets)];
  }
  if (values.limit !== undefined) {
    const n = Number(values.limit);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(`bad --limit '${values.limit}': give a whole number above 0\nusage: ${USAGE}`);
    args.limit = n;
  }

  const home = cairnHome(platform.env, platform.homeDir);
  const marked = await marksFilter(values, home, USAGE);
  if (marked?.sessions.size === 0) {
    if (values.json) process.stdout.write(`${JSON.stringify({ hits: [], partial: false }, null, 2)}\n`);
    else process.stderr.write(`no hits: no session is marked ${marked.described}\n`);
    return 0;
  }
  const daemon = runningDaemon(home, platform.env);
  let reply = daemon ? await searchOver(daemon, args, marked) : undefined;
  if (reply === undefined) {
    if (process.stderr.isTTY) process.stderr.write('no daemon running: bringing the index up to date…\r');
    const server = await startServer({
      env: platform.env,
      homeDir: platform.homeDir,
      cairnHome: home,
      port: 0,
      host: '127.0.0.1',
      waitForIndex: true,
      demo: false,
    });
    try {
      reply = await searchOver({ base: server.url, port: server.port, token: server.token }, args, marked);
    } finally {
      await server.close();
      if (process.stderr.isTTY) process.stderr.write('\x1b[2K');
    }
  }
  if (reply === undefined) throw new Failure('the search could not reach the index');
  if (reply.ok !== true) {
    const error = reply.error as { message?: string } | undefined;
    throw new Failure(`the search failed: ${error?.message ?? JSON.stringify(reply.error)}`);
  }
  const hits = reply.hits as SessionSearchHit[];
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ hits, partial: reply.partial }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(hits.map((h) => hitLines(h, daemon?.base, process.stdout.isTTY === true)).join(''));
  if (reply.partial === true)
    process.stdout.write('(the index is still being built: some sessions were not searched)\n');
  if (hits.length === 0) process.stderr.write('no hits\n');
  return 0;
}

/** A hit: its line, the command that opens the session there, and its web address when a daemon runs. */
function hitLines(h: SessionSearchHit, base: string | undefined, tty: boolean): string {
  const at =
    h.at === undefined ? '                ' : new Date(h.at).toISOString().slice(0, 16).replace('T', ' ');
  const excerpt = snippetParts(h.snippet)
    .map((p) => {
      const text = withoutEscapes(p.text).replace(/\s+/g, ' ');
      if (!p.match) return text;
      return tty ? `\x1b[1m${text}\x1b[22m` : text;
    })
    .join('')
    .trim();
  const lane = h.agent_id === undefined ? '' : ` --agent-id ${h.agent_id}`;
  const lines = [
    `${h.agent.padEnd(11)} ${h.sid.slice(0, 8)}  ${at}  ${h.item_type.padEnd(18)} ${excerpt}`,
    `    cairn show ${h.sid}${lane} --at ${h.item_uuid}`,
  ];
  if (base !== undefined) {
    const lanePart = h.agent_id === undefined ? '' : `&lane=${encodeURIComponent(h.agent_id)}`;
    lines.push(
      `    ${base}#/s/${encodeURIComponent(h.agent)}/${encodeURIComponent(h.sid)}?item=${encodeURIComponent(h.item_uuid)}&type=${encodeURIComponent(h.item_type)}${lanePart}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
