// Usage errors (exit 2) and expected failures (exit 1) as values the entry point prints.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}
export class Failure extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The command's options and positionals. Anything the command does not take is a usage error in
 * our words, naming the option and what the command accepts: an unknown option, a value missing or
 * given to a switch. A value may start with `-` (`--since -2h`, `--types -thinking`); one that looks
 * like an option of its own (`--agent --json`) is taken as the value left out.
 */
export function parseCommand<O extends Options>(argv: string[], options: O, usage: string) {
  const fail = (message: string): never => {
    throw new UsageError(`${message}\nusage: ${usage}`);
  };
  const loose = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of loose.tokens) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (spec === undefined || token.rawName !== `--${token.name}`)
      fail(`unknown option '${token.rawName}'; this command takes ${optionList(options)}`);
    else if (spec.type === 'boolean' && token.value !== undefined)
      fail(`${token.rawName} is a switch and takes no value (got '${token.value}')`);
    else if (
      spec.type === 'string' &&
      (token.value === undefined || isOptionLike(token.value, token.inlineValue))
    )
      fail(`${token.rawName} needs a value`);
  }
  // Every token was checked above; the loose parse's values are those the strict one would give.
  return loose as unknown as ReturnType<
    typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
  >;
}

const isOptionLike = (value: string, inline: boolean | undefined): boolean =>
  !inline && value.startsWith('--');

const optionList = (options: Options): string => {
  const names = Object.keys(options).map((n) => `--${n}`);
  return names.length === 0 ? 'no options' : names.join(', ');
};

export function noPositionals(positionals: string[], usage: string): void {
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${usage}`);
}

/** The one positional a command takes. */
export function onePositional(positionals: string[], usage: string, what: string): string {
  const [first, ...rest] = positionals;
  if (first === undefined) throw new UsageError(`missing ${what}\nusage: ${usage}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'\nusage: ${usage}`);
  return first;
}

export const HELP = `cairn — read, search and dump the sessions of coding agents

usage:
  cairn sessions [--agent A] [--project DIR] [--since T] [--until T] [--limit N]
           [--tag T]... [--starred] [--json]
                                             every session of every agent, newest first; --project
                                             keeps those run in DIR (a path, or a folder's name),
                                             --since/--until those active in that span, --tag and
                                             --starred those marked so in the web UI
  cairn search "<words>" [--agent A] [--project P] [--since T]
           [--in prompts,replies,thinking,tools,outputs] [--limit N] [--tag T]... [--starred] [--json]
                                             full-text search, one hit per line with the command
                                             that shows it; the running daemon's index, else the
                                             same index brought up to date here; --tag/--starred
                                             search only the sessions marked so
  cairn show <ref> [--json]                  a session's events, one per line
  cairn show <ref> --at <item> [--agent-id ID] [--context N] [--json]
                                             the items around one item (N each side, 3 unless told)
  cairn show <ref> --types a,b,-c [--preset P] [--agent-id ID] [--json]
                                             the items a selection keeps, one per line
  cairn summary <ref> | --all [--json]       a session's numbers (model, turns, requests, tokens,
                                             cost, wall-clock and active time); --all: every
                                             session's, newest first, with its model, cost and
                                             active time, and their totals
  cairn usage [daily|weekly|monthly|session|blocks] [--agent A] [--project P] [--model M]
           [--since DATE] [--until DATE] [--timezone TZ] [--breakdown] [--json]
                                             tokens and cost by day, week, month, session or
                                             5-hour billing window (ccusage's JSON field names);
                                             from the running daemon's index when there is one
  cairn usage blocks --live                  the current 5-hour window: tokens, cost, burn rate,
                                             projection and its sessions, drawn again in place
  cairn dump <ref> [--agent-id ID] [--types a,b,-c] [--preset P] [--since T] [--until T]
           [--no-thinking] [--no-agent] [--format json|md] [--no-redact] [--out FILE] [--json]
                                             write a session's items to a file (under
                                             $CAIRN_HOME/dumps unless --out is given), each
                                             secret found replaced by a marker naming its kind
  cairn export <ref> --format html|md|json [--no-redact] [--out FILE] [--json]
                                             write a whole session, every item, to one file (html:
                                             one static page, no scripts); secrets redacted as in dump
  cairn presets [--json]                     the named selections dumps can use
  cairn serve [--port N] [--host H] [--no-demo] [--database URL] [--max-workstations N]
           [--max-event-rate N]
                                             the web UI and its server on 127.0.0.1 (no --port:
                                             the last run's port when free; 0: any free one);
                                             prints the address with its token; --database (or
                                             $CAIRN_DATABASE_URL) postgres://…: the state in
                                             PostgreSQL, shared by several server processes;
                                             --max-workstations N (256) connected at once and
                                             --max-event-rate N (50000) events/s from each, bursts
                                             of 5 s ($CAIRN_MAX_WORKSTATIONS, $CAIRN_MAX_EVENT_RATE):
                                             past them a workstation is refused and backs off
  cairn server user add <name> [--role admin|member] | list | remove <name> | token <name> [--json]
                                             a team server's people (--database URL or
                                             $CAIRN_DATABASE_URL): each signs in with their own
                                             token, printed once (token: a new one, the old stops)
  cairn server workstation add <name> --owner <user> [--shared] | list | remove <name> [--json]
                                             a workstation owned by a user, private unless
                                             --shared; add prints its ticket once
  cairn url [--json]                         the running daemon's address with its token
  cairn agents [--json]                      the agents cairn can drive: installed, version, traits
  cairn agents install|verify|login <agent> [--method M]
                                             install its adapter under $CAIRN_HOME/agents, check it
                                             accepts a session, or sign in
  cairn run <agent> [--cwd DIR] [--session REF] [--mode M] [--model ID] [--allow RULE]
           [--deny RULE] [--json] "prompt" | -
                                             one turn of an agent, streamed; --session continues one;
                                             the prompt from stdin when '-' or none is given; rules
                                             like 'Bash(npm test*)' answer permissions
  cairn handoff <ref> --to <agent> [--preset P | --types a,b,-c] [--since T] [--until T]
           [--prompt "…"] [--cwd DIR] [--no-redact] [--dry-run] [--json]
                                             a new session of another agent in the same folder,
                                             given the chosen items as its first prompt (--dry-run:
                                             print that document and its size, send nothing)
  cairn fork <ref> --at <item> [--to <agent>] [--dry-run] [--json]
                                             a new session holding the history up to an item
  cairn workstation --server URL [--server URL…] [--ticket-file PATH] [--sync]
                                             drive this machine's agents for a server elsewhere;
                                             the ticket comes from CAIRN_TICKET or the file; the
                                             addresses of a team server's processes (repeated or
                                             comma-separated) are tried in turn, the next one
                                             whenever a process refuses or drops the workstation;
                                             --sync also puts this machine's sessions in the
                                             server's list
  cairn workstation ticket <name> [--replace] [--json]
                                             a ticket for a workstation to connect to this server
                                             (--replace revokes the name's ticket in force)
  cairn workstation ticket --list | --revoke <name> [--json]
                                             the tickets issued (names and dates), or revoke one
  cairn <command> --help                     that command's part of this help
  cairn --version                            the version of cairn

A <ref> is a session file's path, a session id, or a unique prefix of one.
Types are item type names or prefixes (message:user, tool:Bash, tool), -x to exclude, @preset to
expand one, applied left to right. Times are ISO (2026-02-12T16:00:00Z) or relative (-10m, -2h, -1d).
Agent homes come from CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, QWEN_HOME, PI_CODING_AGENT_DIR and
COPILOT_HOME (OpenCode and Kilo: OPENCODE_DATA_DIR, KILO_DATA_DIR, XDG_DATA_HOME), else the defaults.
Agents are named by id or alias (claude-code or claude, codex, gemini-cli or gemini, …).
Exit status: 0 success, 1 expected failure (not found, unknown format), 2 usage error (an unknown
option, agent or type, or a value that cannot be read).`;

/**
 * One command's part of HELP: its entries (each `cairn <name> …` line with the lines that go on
 * from it), then the notes every command shares. Undefined for a name HELP has no entry for.
 */
export function commandHelp(name: string): string | undefined {
  const [, usage = '', notes = ''] = HELP.split('\n\n');
  const lines: string[] = [];
  let taking = false;
  for (const line of usage.split('\n')) {
    if (line.startsWith('  cairn '))
      taking = line.startsWith(`  cairn ${name} `) || line === `  cairn ${name}`;
    if (taking) lines.push(line);
  }
  return lines.length === 0 ? undefined : `usage:\n${lines.join('\n')}\n\n${notes}`;
}
