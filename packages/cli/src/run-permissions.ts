// How `cairn run` answers an agent's permission questions: by a rule (`--allow`/`--deny`, or the
// `permissions` of config.json), else on the terminal, else refused.
import { createInterface } from 'node:readline/promises';
import {
  matchPermissionRules,
  type PermissionRule,
  parsePermissionRule,
  permissionRulesOfConfig,
  type RuleEffect,
  type RuleToolCall,
} from '@cairn/protocol';
import { configPath, readCairnConfig } from '@cairn/transcript';
import { UsageError } from './usage.js';

/**
 * `--allow` or `--deny` with no rule after it (at the end, or before another option) stands for
 * every tool, as the bare switch always did: it becomes `--allow=*`.
 */
export function bareRuleFlags(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if ((arg !== '--allow' && arg !== '--deny') || (end !== -1 && i > end)) return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('--') ? `${arg}=*` : arg;
  });
}

/** The rules of the command line, then config.json's; a rule that does not read is a usage error. */
export async function runPermissionRules(
  flags: { allow?: readonly string[]; deny?: readonly string[] },
  cairnHome: string,
  usage: string,
): Promise<PermissionRule[]> {
  const rules: PermissionRule[] = [];
  for (const effect of ['allow', 'deny'] as const) {
    for (const text of flags[effect] ?? []) {
      const parsed = parsePermissionRule(text, effect, `--${effect}`);
      if (!parsed.ok) throw new UsageError(`--${effect}: ${parsed.error}\nusage: ${usage}`);
      rules.push(parsed.rule);
    }
  }
  const config = await readCairnConfig(cairnHome);
  if (!config.ok) throw new UsageError(config.error.message);
  const configured = permissionRulesOfConfig(config.value, 'config.json');
  if (!configured.ok) throw new UsageError(`${configPath(cairnHome)}: ${configured.error}`);
  return [...rules, ...configured.rules];
}

interface PermissionOption {
  optionId: string;
  name: string;
  kind: string;
}

export interface Decision {
  optionId: string;
  /** The rule that answered, when one did. */
  rule?: PermissionRule;
}

/**
 * The option to answer with: by the first rule that covers the call, else asked on the
 * terminal, else refused. Ctrl-C at the question (the terminal is raw then, so it reaches the
 * prompt rather than the process) cancels the turn as it would anywhere else.
 */
export async function decide(
  payload: Record<string, unknown>,
  rules: readonly PermissionRule[],
  cwd: string,
  onInterrupt: () => void,
): Promise<Decision> {
  const options = (payload.options as PermissionOption[] | undefined) ?? [];
  // The first kind named that the agent offers: a one-time answer before a standing one, so a
  // rule of cairn's never turns into a standing rule inside the agent.
  const pick = (kinds: string[]) =>
    kinds.map((kind) => options.find((o) => o.kind === kind)).find((o) => o !== undefined)?.optionId;
  const answerOf = (effect: RuleEffect) =>
    (effect === 'allow' ? pick(['allow_once', 'allow_always']) : pick(['reject_once', 'reject_always'])) ??
    'cancelled';
  const rule = matchPermissionRules(rules, (payload.toolCall ?? {}) as RuleToolCall, cwd);
  if (rule) return { optionId: answerOf(rule.effect), rule };
  if (!process.stdin.isTTY) {
    process.stderr.write('cairn run: a permission was asked with no terminal to answer it; refused\n');
    return { optionId: answerOf('deny') };
  }
  for (const [i, o] of options.entries()) process.stderr.write(`  ${i + 1}. ${o.name}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const asking = new AbortController();
  rl.on('SIGINT', () => asking.abort());
  try {
    for (;;) {
      const answer = (await rl.question('choose a number: ', { signal: asking.signal })).trim();
      const chosen = options[Number(answer) - 1];
      if (chosen) return { optionId: chosen.optionId };
    }
  } catch (error) {
    if (!asking.signal.aborted && (error as Error).name !== 'AbortError') throw error;
    process.stderr.write('\n');
    onInterrupt();
    return { optionId: 'cancelled' };
  } finally {
    rl.close();
  }
}

/** The line that says which rule answered, as the person would write it again. */
export function ruleLine(rule: PermissionRule): string {
  const quoted = `'${rule.text.replace(/'/g, `'\\''`)}'`;
  const where = rule.source === 'config.json' ? `config.json ${rule.effect}` : rule.source;
  return `${rule.effect === 'allow' ? 'allowed' : 'denied'} by ${where} ${quoted}`;
}
