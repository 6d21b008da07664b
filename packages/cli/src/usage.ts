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
  cairn summary <ref> | --all [--json]       a session's numbers (turns, requests, tokens, …)

A <ref> is a session file's path, a session id, or a unique prefix of one.
Agent homes come from CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME (else the defaults).
Exit status: 0 success, 1 expected failure (not found, unknown format), 2 usage error.`;
