// Permission rules: standing answers to an agent's permission questions, such as
// `Bash(npm test*)` or `Edit(src/*)`. A rule names a tool and, optionally, a glob on what the
// call acts on (its command, or the files it touches). `cairn run --allow/--deny` and the
// `permissions` of `$CAIRN_HOME/config.json` use them; anything that answers permission requests
// can match against the same rules.

export type RuleEffect = 'allow' | 'deny';

export interface PermissionRule {
  readonly effect: RuleEffect;
  /** The tool's name as written (`Bash`, `edit`, `*`); matched without regard to case. */
  readonly tool: string;
  /** The glob on the call's command or paths; null when the rule covers every call of the tool. */
  readonly glob: string | null;
  /** The rule as the person wrote it. */
  readonly text: string;
  /** Where it came from, for saying which rule answered (`--allow`, `config.json`). */
  readonly source: string;
}

/** The parts of an ACP tool call (a permission request's `toolCall`) a rule looks at. */
export interface RuleToolCall {
  readonly title?: string | null;
  readonly kind?: string | null;
  /** The agent's own name for the tool, where it gives one (Claude Code's adapter does). */
  readonly name?: string | null;
  readonly rawInput?: unknown;
  readonly locations?: readonly { readonly path?: string }[] | null;
  readonly content?: readonly unknown[] | null;
  readonly _meta?: unknown;
}

export type ParsedRule = { ok: true; rule: PermissionRule } | { ok: false; error: string };

const RULE = /^([A-Za-z][A-Za-z0-9_.:-]*|\*)(?:\((.*)\))?$/s;

export const RULE_SYNTAX_HINT = 'a rule is Tool or Tool(glob), as in Bash(npm test*), Edit(src/*) or *';

/** One rule from its text; an error that quotes it when it is not one. */
export function parsePermissionRule(text: string, effect: RuleEffect, source: string): ParsedRule {
  const trimmed = text.trim();
  const found = RULE.exec(trimmed);
  if (!found) return { ok: false, error: `'${text}' is not a permission rule: ${RULE_SYNTAX_HINT}` };
  const glob = found[2];
  if (glob !== undefined && glob.trim() === '')
    return { ok: false, error: `'${text}' has an empty glob: ${RULE_SYNTAX_HINT}` };
  return {
    ok: true,
    rule: { effect, tool: found[1]!, glob: glob === undefined ? null : glob.trim(), text: trimmed, source },
  };
}

/**
 * The rules under `permissions` of a parsed config (`{"permissions": {"allow": [...], "deny":
 * [...]}}`); none when there is no such key, an error naming the entry when one is bad.
 */
export function permissionRulesOfConfig(
  config: unknown,
  source: string,
): { ok: true; rules: PermissionRule[] } | { ok: false; error: string } {
  if (!isObject(config) || config.permissions === undefined) return { ok: true, rules: [] };
  const section = config.permissions;
  if (!isObject(section))
    return { ok: false, error: '"permissions" must be an object of {"allow": [...], "deny": [...]}' };
  const rules: PermissionRule[] = [];
  for (const key of Object.keys(section)) {
    if (key !== 'allow' && key !== 'deny')
      return { ok: false, error: `permissions.${key}: only "allow" and "deny" hold rules` };
    const list = section[key];
    if (!Array.isArray(list)) return { ok: false, error: `permissions.${key} must be an array of rules` };
    for (const [i, entry] of list.entries()) {
      if (typeof entry !== 'string')
        return { ok: false, error: `permissions.${key}[${i}] must be a string: ${RULE_SYNTAX_HINT}` };
      const parsed = parsePermissionRule(entry, key, source);
      if (!parsed.ok) return { ok: false, error: `permissions.${key}[${i}]: ${parsed.error}` };
      rules.push(parsed.rule);
    }
  }
  return { ok: true, rules };
}

/**
 * The rule that answers a call, if any. A deny rule wins over an allow rule. A deny rule's glob
 * needs to match one of the call's commands or paths; an allow rule's glob needs to match every
 * one of them (a patch that touches a file outside `Edit(src/*)` is still asked about), and a
 * command that chains others (`;`, `&&`, `|`, `$(…)`, redirections) is allowed only by a glob
 * that spells out that same operator.
 */
export function matchPermissionRules(
  rules: readonly PermissionRule[],
  call: RuleToolCall,
  cwd?: string,
): PermissionRule | undefined {
  const subject = subjectOf(call, cwd);
  const applies = (rule: PermissionRule) =>
    toolMatches(rule.tool, subject.tools) && targetsMatch(rule, subject);
  return (
    rules.find((r) => r.effect === 'deny' && applies(r)) ??
    rules.find((r) => r.effect === 'allow' && applies(r))
  );
}

/** What a rule can see of a call: the names it goes by, and what it acts on. */
interface RuleSubject {
  readonly tools: ReadonlySet<string>;
  readonly commands: readonly string[];
  /** Each path as given, and relative to cwd when it lies inside it. */
  readonly paths: readonly (readonly string[])[];
}

/** The names an ACP tool kind also goes by, so `Bash(…)` and `Write(…)` read as people write them. */
const KIND_NAMES: Readonly<Record<string, readonly string[]>> = {
  execute: ['execute', 'bash', 'shell', 'exec', 'run', 'command'],
  edit: ['edit', 'write', 'multiedit', 'patch', 'apply_patch'],
  read: ['read', 'view'],
  delete: ['delete', 'remove'],
  move: ['move', 'rename'],
  search: ['search', 'grep', 'glob', 'find'],
  fetch: ['fetch', 'webfetch', 'websearch'],
  think: ['think'],
  switch_mode: ['switch_mode'],
  other: ['other'],
};

function subjectOf(call: RuleToolCall, cwd: string | undefined): RuleSubject {
  const tools = new Set<string>();
  const kind = typeof call.kind === 'string' ? call.kind.toLowerCase() : '';
  for (const name of KIND_NAMES[kind] ?? (kind ? [kind] : [])) tools.add(name);
  for (const named of [call.name, toolNameOf(call._meta)]) {
    if (typeof named === 'string' && named !== '') tools.add(named.toLowerCase());
  }
  // A title that starts with a tool's name ("Write notes.txt", "Read file") names that tool too.
  const firstWord = /^[A-Za-z][A-Za-z0-9_]*(?=\s|$)/.exec((call.title ?? '').trim())?.[0];
  if (firstWord && kind !== 'execute') tools.add(firstWord.toLowerCase());

  const input = isObject(call.rawInput) ? call.rawInput : {};
  const commands: string[] = [];
  const command = commandOf(input.command ?? input.cmd);
  if (command !== undefined) commands.push(command);
  // Gemini CLI sends a command's call with no input; its title is the command line.
  else if (kind === 'execute' && typeof call.title === 'string' && call.title.trim() !== '')
    commands.push(call.title.trim());

  const rawPaths = new Set<string>();
  for (const key of ['file_path', 'filePath', 'path', 'notebook_path']) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') rawPaths.add(value);
  }
  for (const location of call.locations ?? []) {
    if (typeof location?.path === 'string' && location.path !== '') rawPaths.add(location.path);
  }
  for (const block of call.content ?? []) {
    if (isObject(block) && block.type === 'diff' && typeof block.path === 'string') rawPaths.add(block.path);
  }
  const paths = [...rawPaths].map((p) => {
    const inside = cwd ? relativeInside(p, cwd) : undefined;
    return inside === undefined ? [p] : [p, inside];
  });
  return { tools, commands, paths };
}

function toolNameOf(meta: unknown): string | undefined {
  // Claude Code's adapter names its tool under `_meta.claudeCode.toolName`.
  if (!isObject(meta)) return undefined;
  for (const value of Object.values(meta)) {
    if (isObject(value) && typeof value.toolName === 'string') return value.toolName;
  }
  return undefined;
}

/** A command as one line of shell: an argv's words, or the script of a `bash -lc '…'` wrapper. */
function commandOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined;
  const words = value as string[];
  const shell = /(^|\/)(ba|z|da)?sh$/.test(words[0] ?? '') && /^-l?c$|^-cl$/.test(words[1] ?? '');
  if (shell && words.length === 3) return words[2]!.trim();
  return words.join(' ').trim() || undefined;
}

function relativeInside(path: string, cwd: string): string | undefined {
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : undefined;
}

function toolMatches(tool: string, names: ReadonlySet<string>): boolean {
  return tool === '*' || names.has(tool.toLowerCase());
}

const CHAINING = [';', '&', '|', '`', '$(', '>', '<', '\n'];

function targetsMatch(rule: PermissionRule, subject: RuleSubject): boolean {
  if (rule.glob === null) return true;
  const glob = globRegExp(rule.glob);
  // A deny rule also catches a command hidden in a chain (`cd x && rm -rf y` by `Bash(rm *)`).
  const commandMatches = (command: string) =>
    rule.effect === 'deny'
      ? glob.test(command) || command.split(/&&|\|\||[;|&\n]/).some((part) => glob.test(part.trim()))
      : glob.test(command) && CHAINING.every((op) => !command.includes(op) || rule.glob!.includes(op));
  const pathMatches = (forms: readonly string[]) => forms.some((form) => glob.test(form));
  // A command is what a command's call acts on; the folder some agents name beside it is not.
  const targets: (() => boolean)[] =
    subject.commands.length > 0
      ? subject.commands.map((c) => () => commandMatches(c))
      : subject.paths.map((p) => () => pathMatches(p));
  if (targets.length === 0) return false;
  return rule.effect === 'deny' ? targets.some((t) => t()) : targets.every((t) => t());
}

/** `*` any run of characters (slashes too), `?` one character, the rest as written. */
function globRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.+()[\]{}|]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
