// Named selections: the built-in ones, the user's (from cairn's config), and the checks a set of
// presets must pass before any dump is asked by them.
import { DumpPreset, validate } from '@cairn/protocol';
import { err, ok, type Result } from '../result.js';
import { expandSelectors, type PresetLookup } from './select.js';

export interface PresetConfigError {
  readonly _tag: 'PresetConfigError';
  readonly message: string;
}

const configError = (message: string): PresetConfigError => ({ _tag: 'PresetConfigError', message });

const preset = (name: string, description: string, types: string[]): DumpPreset => ({
  name,
  description,
  opts: { types },
});

/**
 * The presets every cairn has. Tool names are each agent's own spelling, so a preset about files
 * or the shell lists the Claude Code, Codex, Gemini CLI and Qwen Code tools side by side (Qwen Code
 * shares Gemini CLI's names but for `edit`, `grep_search` and `todo_write`); a name no session
 * uses costs nothing.
 */
export const BUILTIN_PRESETS: readonly DumpPreset[] = [
  preset('file', 'reading, writing, editing and searching files', [
    'tool:Read',
    'tool:Write',
    'tool:Edit',
    'tool:MultiEdit',
    'tool:NotebookEdit',
    'tool:Glob',
    'tool:Grep',
    'tool:LS',
    'tool:apply_patch',
    'tool:read_file',
    'tool:read_many_files',
    'tool:write_file',
    'tool:replace',
    'tool:glob',
    'tool:search_file_content',
    'tool:list_directory',
    'tool:edit',
    'tool:grep_search',
    // Copilot CLI's own (its `edit`, `glob` and `grep` are the ones of this list)
    'tool:view',
    'tool:create',
    'tool:str_replace_editor',
    // pi's own (its `edit` is the one above)
    'tool:read',
    'tool:write',
    'tool:grep',
    'tool:find',
    'tool:ls',
    // OpenCode's and Kilo's own (their read, write, edit, glob and grep are the ones above)
    'tool:multiedit',
    'tool:patch',
    'tool:list',
  ]),
  preset('shell', 'commands run in a shell, and their output', [
    'tool:Bash',
    'tool:BashOutput',
    'tool:KillShell',
    'tool:TaskOutput',
    'tool:shell',
    'tool:local_shell',
    'tool:exec_command',
    'tool:write_stdin',
    'tool:run_shell_command',
    // Copilot CLI's own (its `bash` is pi's name too)
    'tool:read_bash',
    'tool:write_bash',
    'tool:stop_bash',
    'tool:list_bash',
    'tool:powershell',
    'tool:bash',
  ]),
  preset('plan', 'the plans and todo lists the agent kept', [
    'tool:TodoWrite',
    'tool:ExitPlanMode',
    'tool:update_plan',
    'tool:write_todos',
    'tool:todo_write',
    'tool:exit_plan_mode',
    'tool:update_todo',
    // OpenCode's and Kilo's own
    'tool:todowrite',
    'tool:todoread',
  ]),
  preset('conversation', 'what the person and the agent said, with commands, interrupts and compactions', [
    'message',
    'notice',
    'system:compact',
  ]),
  preset('howto', 'how the work was done: what was thought, said, run, read and written', [
    'thinking',
    'message:user',
    // A slash command the person typed is one of their prompts.
    'notice:slash',
    'message:sub',
    '@shell',
    '@file',
  ]),
  preset('handover', 'what a successor needs: the conversation, the plan, background tasks', [
    '@conversation',
    '@plan',
    'system:task',
  ]),
  preset('audit', 'everything, attachments included', [
    'message',
    'thinking',
    'notice',
    'system',
    'hook',
    'tool',
  ]),
];

/** The presets by name. */
export const presetLookup = (presets: readonly DumpPreset[]): PresetLookup =>
  new Map(presets.map((p) => [p.name, p]));

/**
 * The presets in configured order: the user's, as their config lists them (one named like a built-in
 * replaces it, at the user's place), then the built-ins the user did not replace, in their own order,
 * so that a user preset can still name them with `@`.
 */
export function mergePresets(builtin: readonly DumpPreset[], user: readonly DumpPreset[]): DumpPreset[] {
  const userNames = new Set(user.map((p) => p.name));
  return [...user, ...builtin.filter((p) => !userNames.has(p.name))];
}

/**
 * Checks a set of presets as a whole: each one expands, so every `@name` it reaches is known and
 * none reaches itself (`cycle: a -> b -> a`).
 */
export function checkPresets(presets: readonly DumpPreset[]): Result<DumpPreset[], PresetConfigError> {
  const lookup = presetLookup(presets);
  for (const p of presets) {
    const expanded = expandSelectors([`@${p.name}`], lookup);
    if (!expanded.ok) return err(configError(expanded.error.message));
  }
  return ok([...presets]);
}

/**
 * The presets a cairn config holds (`{ "dump": { "presets": [DumpPreset…] } }`), merged over the
 * built-ins and checked. Other keys of the config belong to other parts and are left alone.
 */
export function presetsOfConfig(config: unknown): Result<DumpPreset[], PresetConfigError> {
  if (config === undefined) return ok([...BUILTIN_PRESETS]);
  if (!isObject(config)) return err(configError('the config is not a JSON object'));
  const dump = config.dump;
  if (dump === undefined) return ok([...BUILTIN_PRESETS]);
  if (!isObject(dump)) return err(configError('dump: not an object'));
  const list = dump.presets;
  if (list === undefined) return ok([...BUILTIN_PRESETS]);
  if (!Array.isArray(list)) return err(configError('dump.presets: not an array'));
  const user: DumpPreset[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of list.entries()) {
    const checked = validate(DumpPreset, entry);
    if (!checked.ok) return err(configError(`dump.presets[${i}]: ${checked.error.message}`));
    if (seen.has(checked.value.name)) return err(configError(`dump.presets: repeats ${checked.value.name}`));
    seen.add(checked.value.name);
    user.push(checked.value);
  }
  return checkPresets(mergePresets(BUILTIN_PRESETS, user));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
