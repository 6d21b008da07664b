// Usage errors (exit 2) and expected failures (exit 1) as values the entry point prints.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}
export class Failure extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs that turns its own errors into UsageErrors with the command's usage line. */
export function parseCommand<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (cause) {
    throw new UsageError(`${(cause as Error).message}\nusage: ${usage}`);
  }
}

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
  cairn sessions [--agent A] [--json]        every session of every agent, newest first
  cairn show <ref> [--json]                  a session's events, one per line
  cairn show <ref> --types a,b,-c [--preset P] [--agent-id ID] [--json]
                                             the items a selection keeps, one per line
  cairn summary <ref> | --all [--json]       a session's numbers (turns, requests, tokens, …)
  cairn dump <ref> [--agent-id ID] [--types a,b,-c] [--preset P] [--since T] [--until T]
           [--no-thinking] [--no-agent] [--format json|md] [--out FILE] [--json]
                                             write a session's items to a file (under
                                             $CAIRN_HOME/dumps unless --out is given)
  cairn presets [--json]                     the named selections dumps can use
  cairn serve [--port N] [--host H] [--no-demo]
                                             the web UI and its server on 127.0.0.1 (no --port:
                                             the last run's port when free; 0: any free one);
                                             prints the address with its token
  cairn url [--json]                         the running daemon's address with its token
  cairn agents [--json]                      the agents cairn can drive: installed, version, traits
  cairn agents install|verify|login <agent> [--method M]
                                             install its adapter under $CAIRN_HOME/agents, check it
                                             accepts a session, or sign in
  cairn run <agent> [--cwd DIR] [--session REF] [--mode M] [--allow|--deny] [--json] "prompt"
                                             one turn of an agent, streamed; --session continues one
  cairn workstation --server URL [--ticket-file PATH]
                                             drive this machine's agents for a server elsewhere;
                                             the ticket comes from CAIRN_TICKET or the file
  cairn workstation ticket <name> [--replace] [--json]
                                             a ticket for a workstation to connect to this server
                                             (--replace revokes the name's ticket in force)
  cairn workstation ticket --list | --revoke <name> [--json]
                                             the tickets issued (names and dates), or revoke one
  cairn --version                            the version of cairn

A <ref> is a session file's path, a session id, or a unique prefix of one.
Types are item type names or prefixes (message:user, tool:Bash, tool), -x to exclude, @preset to
expand one, applied left to right. Times are ISO (2026-02-12T16:00:00Z) or relative (-10m, -2h, -1d).
Agent homes come from CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, QWEN_HOME, PI_CODING_AGENT_DIR and
COPILOT_HOME (OpenCode and Kilo: OPENCODE_DATA_DIR, XDG_DATA_HOME), else the defaults.
Exit status: 0 success, 1 expected failure (not found, unknown format), 2 usage error.`;
