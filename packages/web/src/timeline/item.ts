// Reading fields off transcript items. The item union is open (any tool, attachment kind or hook
// event arrives under its own name, with fields a newer server may add), so views read fields by
// name and check their kind instead of trusting one static shape.
import type { TranscriptItem } from '@cairn/protocol';

export type Item = TranscriptItem;
type Loose = Record<string, unknown>;

export const field = (item: Item, name: string): unknown => (item as Loose)[name];

export const str = (item: Item, name: string): string | undefined => {
  const v = field(item, name);
  return typeof v === 'string' ? v : undefined;
};

export const num = (item: Item, name: string): number | undefined => {
  const v = field(item, name);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

export const obj = (item: Item, name: string): Loose | undefined => {
  const v = field(item, name);
  return isObject(v) ? v : undefined;
};

export const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isUse = (item: Item): boolean => field(item, 'role') === 'use';
export const isResult = (item: Item): boolean => field(item, 'role') === 'result';

/** `Bash` for `tool:Bash`; undefined for items that are not tools. */
export const toolName = (item: Item): string | undefined =>
  item.type.startsWith('tool:') ? item.type.slice('tool:'.length) : undefined;

/** The type's family, for styling: `message`, `thinking`, `tool`, `hook`, `system`, `notice`. */
export const family = (item: Item): string => item.type.split(':', 1)[0] ?? item.type;

/** Records the agent keeps for itself: shown only on demand. */
export const isMachinery = (item: Item): boolean =>
  item.type === 'system:unknown' || item.type.startsWith('system:attachment:');

/** The boundary half of a compaction (the classifier's own words, with the trigger and the size before),
 * as opposed to the summary the agent continued from. */
export const isCompactionBoundary = (item: Item): boolean =>
  item.type === 'system:compact' && /^context compacted(?: \([^)]*\))?$/.test(str(item, 'text') ?? '');

/** A tool result whose call the agent recorded as failed: the contract says so in `ok` where the
 * result's type has one, else in `is_error`. */
export const isErrorResult = (result: Item): boolean =>
  field(result, 'is_error') === true || field(result, 'ok') === false;

/** Text of any kind a generic value holds, for showing a tool's output. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const parts = value.map((v) => (isObject(v) && typeof v.text === 'string' ? v.text : textOf(v)));
    if (parts.every((p) => p !== undefined)) return parts.join('\n');
  }
  return JSON.stringify(value, null, 2);
}

/** A short line of a long text. */
export function firstLine(text: string, max = 160): string {
  const line = text.trimStart().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The command of a shell-like call, whichever agent spelt it. */
export function shellCommand(item: Item): string | undefined {
  const direct = str(item, 'command');
  if (direct !== undefined) return direct;
  const input = obj(item, 'input');
  if (!input) return undefined;
  const c = input.command ?? input.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((p) => typeof p === 'string')) {
    // Codex writes `["bash", "-lc", "<script>"]`; the script is what a reader wants.
    const parts = c as string[];
    if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && parts[1]?.startsWith('-'))
      return parts[2];
    return parts.join(' ');
  }
  return undefined;
}

const SHELL_TOOLS = new Set([
  'Bash',
  'BashOutput',
  'shell',
  'local_shell',
  'exec_command',
  'run_shell_command',
  'write_stdin',
  // OpenCode's, Kilo's, pi's and Copilot CLI's (Copilot's `powershell` on Windows)
  'bash',
  'powershell',
]);
export const isShellTool = (name: string | undefined): boolean => name !== undefined && SHELL_TOOLS.has(name);

/** A patch in the `*** Begin Patch` format Codex's apply_patch takes, wherever its input holds it. */
export function patchText(item: Item): string | undefined {
  const input = obj(item, 'input');
  if (!input) return undefined;
  for (const v of Object.values(input)) {
    if (typeof v === 'string' && v.includes('*** Begin Patch')) return v;
  }
  return undefined;
}

/** The names an edit's before and after go by: Claude Code's and Gemini CLI's (and Qwen Code's),
 * OpenCode's and Kilo's, Copilot CLI's, pi's. */
const EDIT_KEYS = [
  ['old_string', 'new_string'],
  ['oldString', 'newString'],
  ['old_str', 'new_str'],
  ['oldText', 'newText'],
] as const;

function editPair(o: Loose): { old: string; new: string } | undefined {
  for (const [before, after] of EDIT_KEYS) {
    const old = o[before];
    const now = o[after];
    if (typeof old === 'string' && typeof now === 'string') return { old, new: now };
  }
  return undefined;
}

/** The before/after pairs of an edit whose bodies the item carries (generic shapes: Gemini's
 * `replace`, Claude Code's MultiEdit, OpenCode's `edit` and `multiedit`, pi's `edit` with its `edits`,
 * Copilot CLI's `edit`, or any tool with one of those spellings of the before and after). */
export function editPairs(input: Loose | undefined): { old: string; new: string }[] | undefined {
  if (!input) return undefined;
  const one = editPair(input);
  if (one) return [one];
  if (Array.isArray(input.edits)) {
    const pairs = input.edits.flatMap((e) => {
      const pair = isObject(e) ? editPair(e) : undefined;
      return pair ? [pair] : [];
    });
    return pairs.length > 0 ? pairs : undefined;
  }
  return undefined;
}

/** The subagent a spawn started, from the spawn or from its answer. */
export function spawnedAgent(
  spawn: Item,
  answer: Item | undefined,
  toolResult: Item | undefined,
): string | undefined {
  return (
    str(spawn, 'agent_id') ??
    (answer ? str(answer, 'agent_id') : undefined) ??
    (toolResult ? str(toolResult, 'agent_id') : undefined)
  );
}

export interface PlanStep {
  readonly text: string;
  readonly status: string;
}

/** The steps of a plan or todo list a call wrote, whichever agent's shape it has: Claude Code's
 * TodoWrite (`todos: [{ content, status }]`), Codex's update_plan (`plan: [{ step, status }]`),
 * Gemini CLI's write_todos (`todos: [{ description, status }]`). */
export function planSteps(item: Item): PlanStep[] | undefined {
  const input = obj(item, 'input');
  const list = field(item, 'todos') ?? input?.todos ?? input?.plan;
  if (!Array.isArray(list)) return undefined;
  const steps: PlanStep[] = [];
  for (const s of list) {
    if (!isObject(s)) return undefined;
    const text = s.content ?? s.step ?? s.description;
    if (typeof text !== 'string') return undefined;
    steps.push({ text, status: typeof s.status === 'string' ? s.status : '' });
  }
  return steps;
}
