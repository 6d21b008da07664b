// The standing rules a permission card offers to remember: "this command" (the command's first
// words, as `Bash(npm test*)`) and "this tool" (the tool's name alone, as `Write`). Each one is
// checked against the call it came from, so a remembered rule surely answers that same call again.
import type { PermissionRuleSuggestion } from './chat/permission-rule-frames.js';
import { matchPermissionRules, parsePermissionRule, type RuleToolCall } from './permission-rules.js';

/** The tool names that people write for the agent protocol's kinds of call. */
const KIND_TOOL: Readonly<Record<string, string>> = {
  execute: 'Bash',
  edit: 'Edit',
  read: 'Read',
  delete: 'Delete',
  move: 'Move',
  search: 'Search',
  fetch: 'Fetch',
};

/** Operators that make a command line run more than one command; such a line gets no command rule. */
const CHAINING = [';', '&', '|', '`', '$(', '>', '<', '\n'];

/** The rules a card offers for this call, command first; none that would not answer it. */
export function suggestPermissionRules(call: RuleToolCall, cwd?: string): PermissionRuleSuggestion[] {
  const tool = toolNameOf(call);
  if (tool === undefined) return [];
  const suggestions: PermissionRuleSuggestion[] = [];
  const command = commandOf(call);
  if (command !== undefined && !CHAINING.some((op) => command.includes(op))) {
    const prefix = commandPrefix(command);
    suggestions.push({
      scope: 'command',
      rule: `${tool}(${prefix}*)`,
      label: 'Always allow this command in this project',
    });
  }
  suggestions.push({ scope: 'tool', rule: tool, label: `Always allow ${tool} in this project` });
  return suggestions.filter((s) => {
    const parsed = parsePermissionRule(s.rule, 'allow', 'project');
    return parsed.ok && matchPermissionRules([parsed.rule], call, cwd) !== undefined;
  });
}

function toolNameOf(call: RuleToolCall): string | undefined {
  // The agent's own name for the tool first (Claude Code's adapter gives it under `_meta`).
  const meta = call._meta;
  if (typeof meta === 'object' && meta !== null) {
    for (const value of Object.values(meta)) {
      const named = (value as { toolName?: unknown } | null)?.toolName;
      if (typeof named === 'string' && /^[A-Za-z][A-Za-z0-9_.:-]*$/.test(named)) return named;
    }
  }
  if (typeof call.name === 'string' && /^[A-Za-z][A-Za-z0-9_.:-]*$/.test(call.name)) return call.name;
  const kind = typeof call.kind === 'string' ? call.kind.toLowerCase() : '';
  return KIND_TOOL[kind];
}

function commandOf(call: RuleToolCall): string | undefined {
  const input = call.rawInput;
  if (typeof input === 'object' && input !== null) {
    const value = (input as Record<string, unknown>).command ?? (input as Record<string, unknown>).cmd;
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      const words = value as string[];
      const shell = /(^|\/)(ba|z|da)?sh$/.test(words[0] ?? '') && /^-l?c$|^-cl$/.test(words[1] ?? '');
      const line = (shell && words.length === 3 ? words[2]! : words.join(' ')).trim();
      return line === '' ? undefined : line;
    }
  }
  if (call.kind === 'execute' && typeof call.title === 'string' && call.title.trim() !== '')
    return call.title.trim();
  return undefined;
}

/**
 * The command's program, and its subcommand when the second word reads as one (`npm test`,
 * `git status`), not as a path, a flag or an argument.
 */
function commandPrefix(command: string): string {
  const words = command.split(/\s+/);
  const second = words[1];
  return second !== undefined && /^[a-z][a-z0-9:_-]*$/.test(second) ? `${words[0]} ${second}` : words[0]!;
}
